//! The demo's systems beside Engram, each on its own port: the Acme ATS its cards are read from,
//! the outbox its approved emails go to, and the scripted model its agents answer with.

/// Where the demo's systems answer, once they are served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DemoPorts {
    /// The Acme ATS.
    pub source: String,
    /// The demo's outbox, when one was asked for.
    pub outbox: Option<String>,
    /// The demo's model, when one was asked for.
    pub model: Option<String>,
}

/// Serves the Acme ATS on `ENGRAM_DEMO_SOURCE_PORT` (3001 unless set), the outbox two ports
/// after it unless `outbox` is false, and the model on `ENGRAM_DEMO_MODEL_PORT` (else the port
/// after the ATS) unless `model` is false. A taken port for the outbox or the model must not stop
/// the demo: any free one serves as well. They serve until the process ends.
pub async fn serve_beside(outbox: bool, model: bool) -> Result<DemoPorts, String> {
    let port = env_port("ENGRAM_DEMO_SOURCE_PORT").unwrap_or(3001);
    let source = match crate::acme_ats::spawn(crate::acme_ats::AtsConfig::demo(), port).await {
        Ok((url, _task)) => url,
        Err(e) => return Err(format!("could not serve the demo source system on port {port}: {e}")),
    };
    let outbox = if outbox {
        let outbox_port = if port == 0 { 0 } else { port.saturating_add(2) };
        let served = match crate::outbox::spawn(outbox_port).await {
            Err(e) if outbox_port != 0 => {
                tracing::warn!(port = outbox_port, error = %e, "the demo outbox's port is taken; using any free port");
                crate::outbox::spawn(0).await
            }
            served => served,
        };
        match served {
            Ok((url, _task)) => Some(url),
            Err(e) => return Err(format!("could not serve the demo outbox: {e}")),
        }
    } else {
        None
    };
    let model = if model {
        let after = if port == 0 { 0 } else { port.saturating_add(1) };
        let port = env_port("ENGRAM_DEMO_MODEL_PORT").unwrap_or(after);
        let served = match crate::model::spawn(port).await {
            Err(e) if port != 0 => {
                tracing::warn!(port, error = %e, "the demo model's port is taken; using any free port");
                crate::model::spawn(0).await
            }
            served => served,
        };
        match served {
            Ok((url, _task)) => Some(url),
            Err(e) => return Err(format!("could not serve the demo model on port {port}: {e}")),
        }
    } else {
        None
    };
    Ok(DemoPorts { source, outbox, model })
}

fn env_port(name: &str) -> Option<u16> {
    std::env::var(name).ok().and_then(|p| p.parse().ok())
}
