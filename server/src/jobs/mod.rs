//! The timed jobs a server runs: Prepare my day, the forgetting job, the nightly job, agents'
//! schedules, the who's-who lists' fetch, the bots' memory audits, Operations' daily measure of
//! memory, embedding lessons and the purge of old idempotency keys.

use crate::http::request_id;
use engine::cards::service::PersonMemory;
use engine::learning::nightly::{Nightly, NightlyOutcome};
use engine::operations::Operations;
use engine::persona::service::Bots;
use engine::runs::lists::ReferenceLists;
use engine::services::Services;
use tracing::Instrument;

/// Prepare my day, the forgetting job and the who's-who lists' fetch, checked every minute; each
/// decides itself whether it is due, so a restart never runs one twice in a day.
pub fn spawn_jobs(services: &Services) {
    let Services { memory, lists, nightly, bots, operations, store, clock, lesson_vectors, firing, .. } =
        services.clone();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(std::time::Duration::from_secs(60));
        loop {
            tick.tick().await;
            run_due_jobs(&memory).await;
            run_nightly(&nightly).await;
            fire_schedules(&firing).await;
            fetch_due_lists(&lists).await;
            run_memory_audits(&bots).await;
            measure_memory(&operations).await;
            if let Some(v) = &lesson_vectors {
                embed_lessons(v).await;
            }
            let stale = clock.now() - chrono::Duration::hours(crate::http::idempotency::KEEP_HOURS);
            let purge = store.idem_purge_before(stale);
            if let Err(e) =
                tracing::Instrument::instrument(purge, tracing::info_span!("job", name = "idempotency_purge")).await
            {
                tracing::warn!(error = %e, "old idempotency keys were not purged");
            }
        }
    });
}

/// One check of the timed jobs, each run in a span of its own.
pub async fn run_due_jobs(memory: &PersonMemory) {
    async {
        match memory.prepare.prepare_due().await {
            Ok(ran) if !ran.is_empty() => tracing::info!(people = ran.len(), "prepared the day"),
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "Prepare my day was skipped"),
        }
    }
    .instrument(job_span("prepare_my_day"))
    .await;
    async {
        match memory.prepare.forgetting_due().await {
            Ok(Some((uses, cards))) => tracing::info!(uses, cards, "the forgetting job ran"),
            Ok(None) => {}
            Err(e) => tracing::warn!(error = %e, "the forgetting job was skipped"),
        }
    }
    .instrument(job_span("forgetting"))
    .await;
}

/// The nightly job, when due, in a span of its own. A failure is logged; the day stays claimed,
/// and the runs it did not read wait for the next night.
pub async fn run_nightly(nightly: &Nightly) {
    async {
        match nightly.due().await {
            Ok(NightlyOutcome::Ran(report)) => tracing::info!(summary = report.summary(), "the nightly job ran"),
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "the nightly job was cut short"),
        }
    }
    .instrument(job_span("nightly"))
    .await;
}

/// Agents' schedules that are due, each claimed once across servers, and the scheduled runs that
/// failed since the last tick, taken up once; in a span of their own.
pub async fn fire_schedules(firing: &engine::runs::schedules::Firing) {
    async {
        match firing.tick().await {
            Ok(t) if t.fired.is_empty() && t.retried.is_empty() => {}
            Ok(t) => tracing::info!(fired = t.fired.len(), retried = t.retried.len(), "schedules fired"),
            Err(e) => tracing::warn!(error = %e, "the schedules' tick was cut short"),
        }
    }
    .instrument(job_span("schedules"))
    .await;
}

/// Seed 004's self-driven and threshold audits of the bots' memory files, in a span of their own.
pub async fn run_memory_audits(bots: &Bots) {
    async {
        for report in bots.memory_audits.memory_audits_due().await {
            tracing::info!(summary = report.lines()[0], "a memory audit ran");
        }
    }
    .instrument(job_span("memory_audit"))
    .await;
}

/// Operations' daily measure of memory's tables, when due, in a span of its own.
pub async fn measure_memory(operations: &Operations) {
    async {
        match operations.measure_due().await {
            Ok(Some(_)) => tracing::info!("measured memory's tables for Operations"),
            Ok(None) => {}
            Err(e) => tracing::warn!(error = %e, "memory's tables were not measured"),
        }
    }
    .instrument(job_span("operations_measure"))
    .await;
}

/// Embeds the lessons still without a vector of the configured model (written by the nightly job,
/// or whose call failed), one bounded batch a minute, each lesson claimed once across servers.
pub async fn embed_lessons(vectors: &engine::lessons::vectors::LessonVectors) {
    async {
        if let Err(e) = vectors.catch_up().await {
            tracing::warn!(error = %e, "lessons were not embedded this minute");
        }
    }
    .instrument(job_span("lesson_embeddings"))
    .await;
}

/// The who's-who lists' daily fetch, in a span of its own.
pub async fn fetch_due_lists(lists: &ReferenceLists) {
    async {
        match lists.fetch_daily().await {
            Ok(0) => {}
            Ok(fetched) => tracing::info!(lists = fetched, "fetched the who's-who lists"),
            Err(e) => tracing::warn!(error = %e, "the who's-who lists' fetch was skipped"),
        }
    }
    .instrument(job_span("whos_who_lists"))
    .await;
}

/// Each run of a job gets an id of its own, so its lines can be told from the previous run's.
fn job_span(name: &'static str) -> tracing::Span {
    tracing::info_span!("job", name, run = %request_id::new_id())
}
