//! Agents: the company's, with New agent and Copy for a team, their department role, and each
//! agent's page with its toolsets, clearance, how it runs unasked and its agent tokens; and a person's own private agents.

pub mod agent_tokens;
pub mod agents_page;
pub mod clear_agent_schedule;
pub mod clear_agent_trigger;
pub mod company_agent_page;
pub mod copy_agent;
pub mod create_agent;
pub mod create_private_agent;
pub mod load_agent_page;
pub mod load_agents;
pub mod make_agent_trigger;
pub mod make_company_agent_token;
pub mod revoke_company_agent_token;
pub mod runs_unasked;
pub mod save_playbook;
pub mod set_agent_clearance;
pub mod set_agent_paused;
pub mod set_agent_role;
pub mod set_agent_schedule;
pub mod set_agent_toolsets;
pub mod set_memory_scopes;
