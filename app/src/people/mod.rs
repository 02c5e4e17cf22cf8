//! People: the admin's list, and the drawer with a person's department role.

pub mod load_people;
pub mod people_page;
pub mod set_person_role;
