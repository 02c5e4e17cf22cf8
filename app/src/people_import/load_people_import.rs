use super::ImportResult;
use crate::flash::Notice;
use engine::org::import::ImportPlan;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

/// The dry run of the file in the session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DryRun {
    pub source: String,
    pub plan: ImportPlan,
    /// What the "Add N people" form sends back, so the apply adds exactly what this showed.
    pub check: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeopleImportData {
    pub notice: Option<Notice>,
    pub dry_run: Option<DryRun>,
    /// Pasted text a refusal kept, for the form.
    pub pasted: String,
    pub done: Option<ImportResult>,
}

#[server(prefix = "/fn", endpoint = "load_people_import")]
pub async fn load_people_import() -> Result<PeopleImportData, ServerFnError> {
    use super::{KeptFile, DONE_KEY, KEPT_FILE_KEY, PASTED_KEY, PEOPLE_IMPORT};
    use crate::{flash::notice_key, ssr::*};
    use engine::org::import::NOT_ADMIN;
    use engine::org::service::ImportBy;
    let me = signed_in().await?;
    if !me.is_admin {
        return Err(ServerFnError::new(NOT_ADMIN));
    }
    let mut notice = take_flash(&notice_key(PEOPLE_IMPORT)).await?;
    let done = take_flash(DONE_KEY).await?;
    let pasted = take_flash::<String>(PASTED_KEY).await?.unwrap_or_default();
    let kept: Option<KeptFile> = session().await?.get(KEPT_FILE_KEY).await.map_err(internal)?;
    let dry_run = match kept {
        None => None,
        Some(file) => match org()?.import_dry_run(ImportBy::Person(&me), &file.text).await {
            Ok(plan) => Some(DryRun { source: file.source, check: plan.check(), plan }),
            Err(e) => {
                notice = Some(Notice::refused(refusal(&e)));
                None
            }
        },
    };
    Ok(PeopleImportData { notice, dry_run, pasted, done })
}
