//! OpenTelemetry traces: the request, job, run, model-call and memory spans that tracing makes,
//! sent over OTLP/HTTP with protobuf bodies to the collector an operator names. Off unless
//! `OTEL_EXPORTER_OTLP_ENDPOINT` is set.
//!
//! Only spans go out, never log lines: a span's fields are ids, counts, states and model names,
//! written so (see docs/operations.md, "Traces"); a log line's message is free words, and the
//! promise that no stored text leaves in a trace is kept by not sending them at all. Only the
//! spans of Engram's own code go out (targets `engine` and `server`): the exporter's own HTTP
//! client, hyper and sqlx make spans too, and sending the exporter's would feed it itself.

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_http::{Bytes, HttpClient, HttpError, Request, Response};
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::trace::SdkTracerProvider;
use opentelemetry_sdk::Resource;
use std::time::Duration;
use tracing::Subscriber;
use tracing_subscriber::filter::{filter_fn, FilterExt, Targets};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::Layer;

pub const ENDPOINT: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";
pub const TRACES_ENDPOINT: &str = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT";
pub const PROTOCOL: &str = "OTEL_EXPORTER_OTLP_PROTOCOL";
pub const TRACES_PROTOCOL: &str = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL";
pub const TIMEOUT: &str = "OTEL_EXPORTER_OTLP_TIMEOUT";
pub const TRACES_TIMEOUT: &str = "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT";
pub const SERVICE_NAME: &str = "OTEL_SERVICE_NAME";

/// The one protocol spoken: OTLP over HTTP with protobuf bodies (no gRPC, no JSON).
const HTTP_PROTOBUF: &str = "http/protobuf";
/// The OTLP exporters' default wait for the collector, when no timeout variable says otherwise.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    #[error("{var} is {value:?}: Engram exports traces over http/protobuf only")]
    Protocol { var: &'static str, value: String },
    #[error("{var} is {value:?}: it must be a whole number of milliseconds")]
    Timeout { var: &'static str, value: String },
    #[error("{var} is {value:?}: it must be an http:// or https:// URL")]
    Endpoint { var: &'static str, value: String },
    #[error("the OTLP exporter could not be set up: {0}")]
    Exporter(String),
}

/// The exporter once set up: its layer goes on the subscriber, and `shutdown` sends what is still
/// waiting before the process ends.
pub struct Telemetry {
    provider: SdkTracerProvider,
    /// Where the spans go, for the start-up log line.
    pub traces_url: String,
}

impl Telemetry {
    /// From the process's environment: `None` when `OTEL_EXPORTER_OTLP_ENDPOINT` is unset or empty.
    pub fn from_env() -> Result<Option<Self>, TelemetryError> {
        Self::from_lookup(|k| std::env::var(k).ok())
    }

    /// As `from_env`, reading the variables through `var`, so a test sets up an exporter without
    /// changing the process's environment. The headers variables (`OTEL_EXPORTER_OTLP_HEADERS`,
    /// `OTEL_EXPORTER_OTLP_TRACES_HEADERS`) and `OTEL_RESOURCE_ATTRIBUTES` are read by the
    /// OpenTelemetry crates themselves, from the process's environment.
    pub fn from_lookup(var: impl Fn(&str) -> Option<String>) -> Result<Option<Self>, TelemetryError> {
        let var = |k: &str| var(k).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
        let Some(endpoint) = var(ENDPOINT) else { return Ok(None) };
        let (url_var, given) = match var(TRACES_ENDPOINT) {
            Some(url) => (TRACES_ENDPOINT, url),
            None => (ENDPOINT, endpoint),
        };
        if !(given.starts_with("http://") || given.starts_with("https://")) {
            return Err(TelemetryError::Endpoint { var: url_var, value: given });
        }
        // The signal's own URL is taken as it is; the general one gets the traces path.
        let traces_url = match url_var {
            TRACES_ENDPOINT => given,
            _ => format!("{}/v1/traces", given.trim_end_matches('/')),
        };
        for p in [TRACES_PROTOCOL, PROTOCOL] {
            if let Some(value) = var(p) {
                if value != HTTP_PROTOBUF {
                    return Err(TelemetryError::Protocol { var: p, value });
                }
                break;
            }
        }
        let timeout = match [TRACES_TIMEOUT, TIMEOUT].into_iter().find_map(|t| var(t).map(|v| (t, v))) {
            Some((t, v)) => Duration::from_millis(
                v.parse::<u64>().map_err(|_| TelemetryError::Timeout { var: t, value: v.clone() })?,
            ),
            None => DEFAULT_TIMEOUT,
        };
        let service = var(SERVICE_NAME).unwrap_or_else(|| "engram".to_string());
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_http_client(BlockingClient::new(timeout)?)
            .with_protocol(Protocol::HttpBinary)
            .with_endpoint(traces_url.clone())
            .with_timeout(timeout)
            .build()
            .map_err(|e| TelemetryError::Exporter(e.to_string()))?;
        let resource = Resource::builder()
            .with_service_name(service)
            .with_attribute(opentelemetry::KeyValue::new("service.version", env!("CARGO_PKG_VERSION")))
            .build();
        let provider = SdkTracerProvider::builder().with_batch_exporter(exporter).with_resource(resource).build();
        Ok(Some(Self { provider, traces_url }))
    }

    /// The layer that turns Engram's spans into OpenTelemetry spans: spans only, of targets
    /// `engine` and `server`, at info and above.
    pub fn layer<S>(&self) -> impl Layer<S> + Send + Sync
    where
        S: Subscriber + for<'a> LookupSpan<'a> + Send + Sync,
    {
        let ours =
            Targets::new().with_target("engine", tracing::Level::INFO).with_target("server", tracing::Level::INFO);
        tracing_opentelemetry::layer()
            .with_tracer(self.provider.tracer("engram"))
            // A span's source file and thread say nothing an operator needs and add bytes.
            .with_location(false)
            .with_threads(false)
            .with_tracked_inactivity(false)
            .with_filter(filter_fn(|m| m.is_span()).and(ours))
    }

    /// Sends the spans that have ended and are still waiting, and goes on exporting. It blocks:
    /// call it outside the async runtime, or on a blocking thread.
    pub fn flush(&self) {
        if let Err(e) = self.provider.force_flush() {
            tracing::warn!(error = %e, "the traces waiting were not sent");
        }
    }

    /// Sends the spans still waiting and stops the exporter. It blocks: call it outside the
    /// async runtime, or on a blocking thread.
    pub fn shutdown(self) {
        if let Err(e) = self.provider.shutdown() {
            tracing::warn!(error = %e, "the last traces were not sent");
        }
    }
}

/// reqwest's blocking client, the server's own reqwest with its TLS: the batch processor calls it
/// from its own thread, where no tokio runtime runs.
#[derive(Debug)]
struct BlockingClient(reqwest::blocking::Client);

impl BlockingClient {
    /// The client is made on a thread of its own: reqwest's blocking client starts a runtime, and
    /// must not be made inside tokio's.
    fn new(timeout: Duration) -> Result<Self, TelemetryError> {
        std::thread::spawn(move || reqwest::blocking::Client::builder().timeout(timeout).build())
            .join()
            .map_err(|_| TelemetryError::Exporter("making the HTTP client failed".into()))?
            .map(Self)
            .map_err(|e| TelemetryError::Exporter(e.to_string()))
    }
}

#[async_trait::async_trait]
impl HttpClient for BlockingClient {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let response = self.0.execute(request.try_into()?)?;
        let mut out = Response::builder().status(response.status().as_u16());
        for (name, value) in response.headers() {
            out = out.header(name.as_str(), value.as_bytes());
        }
        Ok(out.body(response.bytes()?)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn set_up(vars: &[(&str, &str)]) -> Result<Option<Telemetry>, TelemetryError> {
        let vars: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Telemetry::from_lookup(|k| vars.get(k).cloned())
    }

    #[test]
    fn off_unless_the_endpoint_is_set() {
        assert!(set_up(&[]).unwrap().is_none());
        assert!(set_up(&[(ENDPOINT, "  ")]).unwrap().is_none());
        // The signal's own URL alone does not switch export on.
        assert!(set_up(&[(TRACES_ENDPOINT, "http://127.0.0.1:4318/v1/traces")]).unwrap().is_none());
    }

    #[test]
    fn the_traces_url_is_the_signals_own_or_the_endpoint_with_its_path() {
        let t = set_up(&[(ENDPOINT, "http://collector:4318/")]).unwrap().unwrap();
        assert_eq!(t.traces_url, "http://collector:4318/v1/traces");
        t.shutdown();
        let t = set_up(&[(ENDPOINT, "http://collector:4318"), (TRACES_ENDPOINT, "https://elsewhere/otlp/traces")])
            .unwrap()
            .unwrap();
        assert_eq!(t.traces_url, "https://elsewhere/otlp/traces");
        t.shutdown();
    }

    #[test]
    fn a_protocol_other_than_http_protobuf_or_a_bad_value_is_refused_by_name() {
        let e = set_up(&[(ENDPOINT, "http://c:4317"), (PROTOCOL, "grpc")]).err().unwrap();
        assert_eq!(
            e.to_string(),
            "OTEL_EXPORTER_OTLP_PROTOCOL is \"grpc\": Engram exports traces over http/protobuf only"
        );
        // The signal's own variable is read first.
        let t = set_up(&[(ENDPOINT, "http://c:4318"), (PROTOCOL, "grpc"), (TRACES_PROTOCOL, "http/protobuf")]);
        t.unwrap().unwrap().shutdown();
        let e = set_up(&[(ENDPOINT, "http://c:4318"), (TIMEOUT, "10s")]).err().unwrap();
        assert_eq!(e.to_string(), "OTEL_EXPORTER_OTLP_TIMEOUT is \"10s\": it must be a whole number of milliseconds");
        let e = set_up(&[(ENDPOINT, "collector:4318")]).err().unwrap();
        assert_eq!(
            e.to_string(),
            "OTEL_EXPORTER_OTLP_ENDPOINT is \"collector:4318\": it must be an http:// or https:// URL"
        );
    }
}
