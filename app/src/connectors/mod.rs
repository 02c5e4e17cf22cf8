//! Connectors, for admins: the setup sheet with its switches, what each tool returns, and each
//! role's "my work" queries.

pub mod add_my_work_query;
pub mod confirm_shape;
pub mod connector_page;
pub mod connectors_page;
pub mod create_connector;
pub mod draft_shapes;
pub mod load_connectors;
pub mod load_sheet;
pub mod reapprove_tool;
pub mod save_connector;
pub mod save_connector_notes;
pub mod set_admits_roles;
pub mod set_company_key;
pub mod set_own_key_tools;
pub mod set_whos_who;
pub mod set_write_target;
pub mod tick_tool;
pub mod toolset_access;
