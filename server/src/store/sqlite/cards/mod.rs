//! `store::cards` on SQLite, expanded here: person memory's connectors, record shapes, cards and
//! people's use of them.

mod connectors;
mod forgetting;
mod kept;
mod prepare;
pub(crate) mod terms;

crate::store::cards::cards_store!();
