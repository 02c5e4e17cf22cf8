//! The demo company `engram demo` serves: its people and cores, its bots' vault and first runs,
//! its cards, its Sales playbook and glossary, and the stand-in Acme ATS they are read from. None of it is part of the product
//! server; the server only calls in here when asked for the demo.

pub mod acme_ats;
pub mod acme_lists;
pub mod bots;
pub mod cards;
pub mod company;
pub mod history;
pub mod knowledge;
pub mod model;
pub mod outbox;
pub mod ports;

use engine::cards::service::PersonMemory;
use engine::persona::vault::Vault;
use engine::store::Store;
use engine::SystemClock;
use std::sync::Arc;

/// Seeds the whole demo into an empty database: the company, then its bots' first runs in the
/// vault, then its cards read from the Acme ATS at `source`. Returns whether it seeded; a
/// database that already holds a company is left as it is. Only the company is required: the
/// runs and the cards are logged and skipped when they cannot be made.
pub async fn seed_if_empty(
    store: Arc<dyn Store>,
    memory: &PersonMemory,
    vault: Option<Arc<dyn Vault>>,
    source: Option<&str>,
) -> Result<bool, company::SeedError> {
    if !company::seed_if_empty(store.as_ref()).await? {
        return Ok(false);
    }
    if let Some(vault) = vault {
        match bots::seed_episodes(store.clone(), vault, Arc::new(SystemClock)).await {
            Ok(_) => tracing::info!("recorded the demo bots' first runs"),
            Err(e) => tracing::warn!(error = %e, "could not record the demo bots' runs"),
        }
    }
    if let Some(url) = source {
        match cards::seed(store.as_ref(), memory, Arc::new(SystemClock), url).await {
            Ok(()) => tracing::info!(source = %url, "connected the demo's Acme ATS"),
            Err(e) => tracing::warn!(error = %e, "could not connect the demo's Acme ATS"),
        }
    }
    match knowledge::seed(store.as_ref(), &SystemClock).await {
        Ok(()) => tracing::info!("wrote the demo's Sales playbook, connector notes and glossary"),
        Err(e) => tracing::warn!(error = %e, "could not write the demo's Sales playbook and glossary"),
    }
    Ok(true)
}
