use leptos::prelude::*;

/// The flash key for a dry run's report, shown once on the agent page.
pub fn audit_preview_key(agent: &str) -> String {
    format!("memory-audit-preview:{agent}")
}

/// Seed 004 on the agent page: **Dry run** shows the actions without applying them; **Audit
/// now** applies them. Either way the outcome is the page's notice, and a dry run's actions are
/// shown once beside the panel.
#[server(prefix = "/fn", endpoint = "run_memory_audit")]
pub async fn run_memory_audit(agent: String, mode: String) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::org_agent;
    use crate::ssr::*;
    use engine::persona::service::{AuditStatus, AuditTarget, Caller};
    let me = signed_in().await?;
    let dry_run = match mode.as_str() {
        "dry_run" => true,
        "apply" => false,
        _ => return Err(ServerFnError::new("Choose Dry run or Audit now")),
    };
    let back = org_agent(&agent);
    let target = AuditTarget::Agent(agent.clone());
    let notice = match bots()?.memory_audits.memory_audit(&Caller::Person(me), target, dry_run).await {
        Ok(r) => {
            let first = r.lines().remove(0);
            match r.status {
                AuditStatus::DryRun => {
                    set_flash(&audit_preview_key(&agent), &r).await?;
                    Notice::ok(format!("Dry run, nothing was written. {first}"))
                }
                AuditStatus::Complete => {
                    Notice::ok(format!("Memory audit #{} applied. {first}", r.audit.unwrap_or_default()))
                }
                AuditStatus::Skip => Notice::ok(first),
            }
        }
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(&back, notice).await
}
