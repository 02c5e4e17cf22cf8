//! Agents and their department role.

pub mod agents_page;
pub mod load_agents;
pub mod set_agent_role;
