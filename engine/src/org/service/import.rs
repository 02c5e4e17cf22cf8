//! Importing people from a CSV file: the dry run, and the apply that adds everyone it accepts in
//! one transaction, each with a one-time invite link.

use super::OrgService;
use crate::auth::invite::{hash_invite_secret, invite_path, new_invite_secret, INVITE_DAYS};
use crate::kernel::{Actor, StoreError};
use crate::org::import::{
    people_count, plan_import, AddedPerson, ImportDone, ImportError, ImportPlan, ImportedPerson, PeopleImport,
    NOT_ADMIN,
};
use crate::org::Person;

/// Who runs an import: an admin, or the operator on the host (`engram people import` without
/// `--as`), who is trusted as the host's own command line is.
#[derive(Debug, Clone, Copy)]
pub enum ImportBy<'a> {
    Person(&'a Person),
    HostOperator,
}

impl ImportBy<'_> {
    /// Refuses anyone but an admin who has not left (the host's operator is admitted).
    pub fn admitted(&self) -> Result<(), ImportError> {
        match self {
            ImportBy::Person(p) if !p.is_admin || p.left_at.is_some() => {
                Err(ImportError::NotAllowed(NOT_ADMIN.to_string()))
            }
            _ => Ok(()),
        }
    }
}

impl OrgService {
    /// The dry run: the people the file would add and the rows it refuses, changing nothing.
    pub async fn import_dry_run(&self, by: ImportBy<'_>, text: &str) -> Result<ImportPlan, ImportError> {
        by.admitted()?;
        let dir = self.store.directory().await?;
        plan_import(text, &dir)
    }

    /// Adds everyone the file's dry run accepts, in one transaction, each with an invite link.
    /// `check` is the [`ImportPlan::check`] of the dry run the admin saw: if the file now checks
    /// differently (an email taken meanwhile, a team renamed), nothing is added.
    pub async fn import_people(
        &self,
        by: ImportBy<'_>,
        text: &str,
        check: Option<&str>,
    ) -> Result<ImportDone, ImportError> {
        let plan = self.import_dry_run(by, text).await?;
        if let Some(seen) = check.map(str::trim).filter(|c| !c.is_empty()) {
            if seen != plan.check() {
                let was = seen.split('-').next().and_then(|n| n.parse::<usize>().ok());
                let now = people_count(plan.to_add.len());
                let counts = match was {
                    Some(was) if was != plan.to_add.len() => {
                        format!(" The dry run would have added {}; now {now} would be added.", people_count(was))
                    }
                    _ => String::new(),
                };
                return Err(ImportError::Changed(format!(
                    "Nothing was added: the people, teams or roles changed since the dry run.{counts} \
                     Check the file again."
                )));
            }
        }
        if plan.to_add.is_empty() {
            return Err(ImportError::BadFile("No one would be added: every row of the file is refused".to_string()));
        }
        let now = self.clock.now();
        let secrets: Vec<String> = plan.to_add.iter().map(|_| new_invite_secret()).collect();
        let import = PeopleImport {
            people: plan
                .to_add
                .iter()
                .zip(&secrets)
                .map(|(row, secret)| ImportedPerson {
                    name: row.name.clone(),
                    email: row.email.clone(),
                    main_team: row.team,
                    role_override: row.role,
                    invite_hash: hash_invite_secret(secret),
                })
                .collect(),
            password_hash: unusable_password_hash().await?,
            invite_expires_at: now + chrono::Duration::days(INVITE_DAYS),
            audit_detail: format!(
                "added {} from a CSV file; {} refused",
                people_count(plan.to_add.len()),
                match plan.refused.len() {
                    1 => "1 row".to_string(),
                    n => format!("{n} rows"),
                }
            ),
        };
        let person = match by {
            ImportBy::Person(p) => Some(p.id),
            ImportBy::HostOperator => None,
        };
        let ids = match self.store.import_people(&import, Actor { person, at: now }).await {
            Ok(ids) => ids,
            Err(StoreError::Duplicate(email)) => {
                let line = plan.to_add.iter().find(|r| r.email == email).map(|r| format!(" (line {})", r.line));
                let which =
                    if email.is_empty() { "an email in the file".to_string() } else { format!("the email {email}") };
                return Err(ImportError::Changed(format!(
                    "Nothing was added: {which}{} was taken since the dry run. Check the file again.",
                    line.unwrap_or_default()
                )));
            }
            Err(e) => return Err(e.into()),
        };
        let added = plan
            .to_add
            .into_iter()
            .zip(ids)
            .zip(secrets)
            .map(|((row, id), secret)| AddedPerson {
                id,
                line: row.line,
                name: row.name,
                email: row.email,
                invite_path: invite_path(&secret),
            })
            .collect();
        Ok(ImportDone { added, refused: plan.refused })
    }
}

/// A real password hash of a random secret that is thrown away: sign-in reads it as any other
/// hash, and no password matches it until the person sets theirs through the invite.
async fn unusable_password_hash() -> Result<String, ImportError> {
    crate::auth::hash_password(new_invite_secret()).await.map_err(|e| ImportError::Internal(e.to_string()))
}
