//! People: the admin's list, and the drawer with a person's department role and manager, and marking
//! someone as left; adding people with an invite link, resetting passwords and choosing admins; and
//! the invite page and Profile → Password.

pub mod find_people;
#[cfg(feature = "ssr")]
pub mod invite_link;
pub mod load_people;
pub mod mark_left;
pub mod people_page;
pub mod set_manager;
pub mod set_person_role;
// Adding people, invite links, passwords and admins.
pub mod accept_invite;
pub mod add_person;
pub mod change_password;
pub mod invite_page;
pub mod load_add_person;
pub mod load_invite;
pub mod password_page;
pub mod people_admin;
pub mod reset_password;
pub mod set_admin;
pub mod take_reset_notice;
