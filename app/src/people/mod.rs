//! People: the admin's list, and the drawer with a person's department role and manager, and marking
//! someone as left.

pub mod load_people;
pub mod mark_left;
pub mod people_page;
pub mod set_manager;
pub mod set_person_role;
