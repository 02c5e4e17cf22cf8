//! Timed jobs claimed once across servers: every area with a daily job (forgetting, Prepare my
//! day, the nightly job, the bots' memory audits) claims its run through this.

use super::store_error::StoreError;
use async_trait::async_trait;

#[async_trait]
pub trait JobClaims: Send + Sync {
    /// Claims a daily job's run for a local date: true for exactly one caller, however many
    /// servers share the database, so the job runs once a day, not once a day per server.
    async fn claim_daily_run(&self, job: &str, local_date: &str) -> Result<bool, StoreError>;
}
