//! The ground floor: what every area of the engine speaks. Nothing here imports an area.
//!
//! Beside this folder, the root's single files stand on the same floor: `canon` (what counts as
//! the same value), `clock`, `diff`, `error` (the one wording of failures), `quoting`,
//! `secrets` (the credential detector) and `tokens` (the tally every budget counts with).

pub mod age;
pub mod embed;
pub mod events;
pub mod ids;
pub mod jobs;
pub mod label;
pub mod model;
pub mod person;
pub mod ports;
pub mod refusal;
pub mod store_error;
pub mod strings;

pub use age::age_words;
pub use ids::{AgentId, MessageId, PersonId, RoleId, RunId, TeamId, ThreadId};
pub use jobs::JobClaims;
pub use label::DataLabel;
pub use person::Person;
pub use store_error::{Actor, StoreError};
