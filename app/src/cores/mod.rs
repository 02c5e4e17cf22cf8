//! Roles and core knowledge: the pages and their server functions.

pub mod accept_suggestion;
pub mod core_editor_page;
pub mod core_panel;
pub mod core_version_page;
pub mod create_role;
pub mod dismiss_suggestion;
pub mod draft_core;
pub mod load_core_editor;
pub mod load_core_page;
pub mod load_core_version;
pub mod load_roles;
pub mod reload_core;
pub mod restore_core;
pub mod role_page;
pub mod roles_page;
pub mod save_core;
pub mod set_core_limit;
pub mod set_team_role;
