//! The test process's one process-wide tracing subscriber: the server logs into [`LOG`], which the
//! request-id tests read, and the spans of one test's thread at a time go to one collector
//! stand-in over OTLP, which the OpenTelemetry tests read.
//!
//! Process-wide, never a thread's own (`tracing::dispatcher::set_default`): with a thread's own
//! dispatcher alive anywhere in the process, tracing hands a span's close to its parent through
//! whichever dispatcher is the thread's default at that moment, and inside another dispatcher call
//! that is none, so a parent span (a request, a run) was sometimes never closed, nor exported.

use crate::otel::{exporter_to, Collector};
use server::telemetry::Telemetry;
use std::cell::Cell;
use std::sync::{Mutex, OnceLock};
use tracing_subscriber::filter::{filter_fn, EnvFilter};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::Layer;

/// Everything the server logs in this test process. The server answers on other threads than
/// the test's, so the subscriber has to be the process-wide one.
pub static LOG: Mutex<Vec<u8>> = Mutex::new(Vec::new());

struct Captured;

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        LOG.lock().unwrap_or_else(|e| e.into_inner()).extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

thread_local! {
    /// Whether this thread's spans are exported: only an OpenTelemetry test's own thread, while it runs.
    static TRACED: Cell<bool> = const { Cell::new(false) };
}

/// The collector every exported span goes to, and the exporter that sends them.
pub struct Exported {
    pub collector: Collector,
    pub telemetry: Telemetry,
}

/// Sets the process-wide subscriber up, once.
pub fn install() -> &'static Exported {
    static EXPORTED: OnceLock<Exported> = OnceLock::new();
    EXPORTED.get_or_init(|| {
        let collector = Collector::start();
        let telemetry = exporter_to(&collector);
        let logs = tracing_subscriber::fmt::layer()
            .with_ansi(false)
            .with_writer(|| Captured)
            .with_filter(EnvFilter::new("info,sqlx=warn"));
        let spans = telemetry.layer().with_filter(filter_fn(|_| TRACED.with(Cell::get)));
        tracing::subscriber::set_global_default(tracing_subscriber::registry().with(logs).with(spans))
            .expect("no other process-wide subscriber in the tests");
        Exported { collector, telemetry }
    })
}

/// While it lives, the spans this thread starts are exported. An OpenTelemetry test runs on one
/// thread (its server and the runs it answers too), so these are its spans and no other test's.
pub struct TracingThisThread;

impl TracingThisThread {
    pub fn start() -> Self {
        TRACED.with(|t| t.set(true));
        TracingThisThread
    }
}

impl Drop for TracingThisThread {
    fn drop(&mut self) {
        TRACED.with(|t| t.set(false));
    }
}
