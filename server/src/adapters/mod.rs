//! What the engine's ports reach the world through: the models, the connected systems, the bots'
//! vault, the outbox and the live checks, all held to one outbound policy.

pub mod agent_model;
pub mod connector;
pub mod embed;
pub mod live_checks;
pub mod llm;
pub mod outbound;
pub mod outbox;
pub mod vault;
