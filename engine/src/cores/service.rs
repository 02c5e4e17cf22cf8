//! The core use cases: reading a core and its History, saving, restoring, limits and suggestions.

use super::store::CorePorts;
use crate::clock::Clock;
use crate::cores::{
    check_company_limit, parse_note, text_with_line, CoreError, CoreHead, CoreScope, CoreSubject, CoreVersion,
    NewCoreVersion, NewSuggestion, Suggestion, SuggestionState, HISTORY_PAGE, NO_ROLE_NOTICE,
};
use crate::diff::{diff_lines, DiffLine};
use crate::kernel::{Actor, StoreError};
use crate::org::{Person, Role, RoleSlug};
use crate::tokens::count_tokens;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::Arc;

/// The core use cases. Each checks who is asking and what the rules allow, then makes one store
/// call.
#[derive(Clone)]
pub struct CoreService {
    store: Arc<dyn CorePorts>,
    clock: Arc<dyn Clock>,
}

/// One role's line on Roles and core knowledge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoleCoreSummary {
    pub role: Role,
    pub version: Option<u32>,
    pub tokens: u32,
    pub limit: u32,
}

/// One team's line on Roles and core knowledge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeamCoreSummary {
    pub team: crate::org::Team,
    pub role_name: Option<String>,
    pub lead_name: Option<String>,
    /// How many current people have it as their main team.
    #[serde(default)]
    pub members: u32,
    pub version: Option<u32>,
    pub tokens: u32,
    pub limit: u32,
    /// Set when the team has no role, so its core loads in no run.
    pub notice: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RolesOverview {
    pub roles: Vec<RoleCoreSummary>,
    pub teams: Vec<TeamCoreSummary>,
    pub is_admin: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VersionSummary {
    pub version: u32,
    pub tokens: u32,
    pub author: String,
    pub note: String,
    pub restored_from: Option<u32>,
    pub saved_at: DateTime<Utc>,
}

/// One page of a core's History, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryPage {
    pub versions: Vec<VersionSummary>,
    /// The `before` that asks for the next, older page; none when nothing is older.
    pub next_before: Option<u32>,
}

/// Everything a page needs to show one core.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoreView {
    pub subject: CoreSubject,
    pub title: String,
    pub limit: u32,
    pub current: Option<CoreVersion>,
    pub history: HistoryPage,
    pub may_edit: bool,
    pub may_set_limit: bool,
    /// Open suggestions, shown only to the core's owners.
    pub suggestions: Vec<Suggestion>,
    pub notice: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VersionView {
    pub title: String,
    pub version: CoreVersion,
    pub current_version: u32,
    /// From this version to the current text.
    pub diff_to_current: Vec<DiffLine>,
    pub may_restore: bool,
}

impl CoreService {
    pub fn new(store: Arc<dyn CorePorts>, clock: Arc<dyn Clock>) -> Self {
        Self { store, clock }
    }

    fn actor(&self, person: &Person) -> Actor {
        Actor { person: Some(person.id), at: self.clock.now() }
    }

    /// Resolves a scope to the role or team it belongs to.
    pub async fn core_subject(&self, scope: &CoreScope) -> Result<CoreSubject, CoreError> {
        match scope {
            CoreScope::Company(slug) => {
                let role = self
                    .store
                    .role(slug)
                    .await?
                    .ok_or_else(|| CoreError::NotFound(format!("There is no role {slug}")))?;
                Ok(CoreSubject { scope: scope.clone(), role: Some(role), team: None })
            }
            CoreScope::Team(id) => {
                let team = self
                    .store
                    .team(*id)
                    .await?
                    .ok_or_else(|| CoreError::NotFound("There is no such team".to_string()))?;
                let role = match team.role {
                    Some(r) => self.store.role_by_id(r).await?,
                    None => None,
                };
                Ok(CoreSubject { scope: scope.clone(), role, team: Some(team) })
            }
        }
    }

    /// The core of a scope as it stands, with its subject; for readers such as the CLI.
    pub async fn current_core(&self, scope: &CoreScope) -> Result<(CoreSubject, Option<CoreVersion>), CoreError> {
        let subject = self.core_subject(scope).await?;
        let current = self.store.current_core(scope).await?;
        Ok((subject, current))
    }

    pub async fn roles_overview(&self, viewer: &Person) -> Result<RolesOverview, CoreError> {
        // The outline, the leads by id and the kept counts: never everyone in the organisation.
        let dir = self.store.outline().await?;
        let lead_ids: Vec<_> = dir.teams.iter().filter_map(|t| t.lead).collect();
        let leads = self.store.people_by_ids(&lead_ids).await?;
        let sizes = self.store.team_sizes().await?;
        // Every core's current version in one read, not one read a role and a team.
        let heads: HashMap<CoreScope, CoreHead> =
            self.store.current_core_heads().await?.into_iter().map(|h| (h.scope.clone(), h)).collect();
        let mut roles = Vec::with_capacity(dir.roles.len());
        for role in &dir.roles {
            let current = heads.get(&CoreScope::Company(role.slug.clone()));
            roles.push(RoleCoreSummary {
                role: role.clone(),
                version: current.map(|c| c.version),
                tokens: current.map(|c| c.tokens).unwrap_or(0),
                limit: role.company_core_limit,
            });
        }
        let mut teams = Vec::with_capacity(dir.teams.len());
        for team in &dir.teams {
            let current = heads.get(&CoreScope::Team(team.id));
            teams.push(TeamCoreSummary {
                team: team.clone(),
                role_name: team.role.and_then(|r| dir.role(r)).map(|r| r.name.clone()),
                lead_name: team.lead.and_then(|l| leads.iter().find(|p| p.id == l)).map(|p| p.name.clone()),
                members: sizes.iter().find(|s| s.team == Some(team.id)).map(|s| s.people).unwrap_or(0),
                version: current.map(|c| c.version),
                tokens: current.map(|c| c.tokens).unwrap_or(0),
                limit: crate::cores::TEAM_CORE_LIMIT,
                notice: team.role.is_none().then(|| NO_ROLE_NOTICE.to_string()),
            });
        }
        Ok(RolesOverview { roles, teams, is_admin: viewer.is_admin })
    }

    /// One core with one page of its History: the latest versions, or those older than `before`.
    pub async fn core_view(
        &self,
        viewer: &Person,
        scope: &CoreScope,
        before: Option<u32>,
    ) -> Result<CoreView, CoreError> {
        let subject = self.core_subject(scope).await?;
        let current = self.store.current_core(scope).await?;
        let history = self.history_page(scope, before).await?;
        let may_edit = subject.may_edit(viewer).is_ok();
        let suggestions = if may_edit {
            self.store.suggestions(scope).await?.into_iter().filter(|s| s.state == SuggestionState::Open).collect()
        } else {
            Vec::new()
        };
        Ok(CoreView {
            title: subject.title(),
            limit: subject.limit(),
            notice: subject.loads_in_no_run().then(|| NO_ROLE_NOTICE.to_string()),
            may_set_limit: viewer.is_admin && matches!(scope, CoreScope::Company(_)),
            subject,
            current,
            history,
            may_edit,
            suggestions,
        })
    }

    /// One page of a core's History: at most 20 versions, newest first, older than `before` when
    /// it is given.
    pub async fn core_history(&self, scope: &CoreScope, before: Option<u32>) -> Result<HistoryPage, CoreError> {
        self.core_subject(scope).await?;
        self.history_page(scope, before).await
    }

    async fn history_page(&self, scope: &CoreScope, before: Option<u32>) -> Result<HistoryPage, CoreError> {
        // One more than a page says whether anything is older, without counting the history.
        let mut versions = self.store.core_versions(scope, before, HISTORY_PAGE + 1).await?;
        let more = versions.len() > HISTORY_PAGE as usize;
        versions.truncate(HISTORY_PAGE as usize);
        let next_before = if more { versions.last().map(|v| v.version) } else { None };
        Ok(HistoryPage {
            versions: versions
                .into_iter()
                .map(|v| VersionSummary {
                    version: v.version,
                    tokens: v.tokens,
                    author: v.author,
                    note: v.note,
                    restored_from: v.restored_from,
                    saved_at: v.saved_at,
                })
                .collect(),
            next_before,
        })
    }

    pub async fn version_view(
        &self,
        viewer: &Person,
        scope: &CoreScope,
        version: u32,
    ) -> Result<VersionView, CoreError> {
        let subject = self.core_subject(scope).await?;
        let v = self
            .store
            .core_version(scope, version)
            .await?
            .ok_or_else(|| CoreError::NotFound(format!("{} has no version {version}", subject.title())))?;
        let current = self.store.current_core(scope).await?;
        let (current_version, current_text) = current.map(|c| (c.version, c.text)).unwrap_or((0, String::new()));
        Ok(VersionView {
            title: subject.title(),
            diff_to_current: diff_lines(&v.text, &current_text),
            may_restore: subject.may_edit(viewer).is_ok() && v.version != current_version,
            current_version,
            version: v,
        })
    }

    /// Saves a new version, refused when not allowed, over the limit, or based on an old version.
    pub async fn save_core(
        &self,
        actor: &Person,
        scope: &CoreScope,
        based_on: u32,
        text: &str,
        note: &str,
    ) -> Result<CoreVersion, CoreError> {
        let subject = self.core_subject(scope).await?;
        subject.may_edit(actor)?;
        let note = parse_note(note)?;
        crate::secrets::refuse("The core", text).map_err(CoreError::Secret)?;
        crate::secrets::refuse("\"What changed\"", &note).map_err(CoreError::Secret)?;
        let tokens = count_tokens(text);
        subject.check_fits(tokens)?;
        let new = NewCoreVersion {
            scope: scope.clone(),
            based_on,
            text: text.to_string(),
            tokens,
            author: actor.id,
            note,
            restored_from: None,
            at: self.clock.now(),
        };
        self.store.append_core_version(&new).await.map_err(|e| match e {
            StoreError::Changed { current } => CoreError::Changed { current },
            other => other.into(),
        })
    }

    /// Brings an earlier text back as a new version, so the restore is itself in the history.
    pub async fn restore_core(
        &self,
        actor: &Person,
        scope: &CoreScope,
        from: u32,
        based_on: u32,
    ) -> Result<CoreVersion, CoreError> {
        let subject = self.core_subject(scope).await?;
        subject.may_edit(actor)?;
        let old = self
            .store
            .core_version(scope, from)
            .await?
            .ok_or_else(|| CoreError::NotFound(format!("{} has no version {from}", subject.title())))?;
        // The limit may have been raised for the old text and lowered since; it must still fit.
        subject.check_fits(old.tokens)?;
        let new = NewCoreVersion {
            scope: scope.clone(),
            based_on,
            text: old.text,
            tokens: old.tokens,
            author: actor.id,
            note: format!("Restored version {from}"),
            restored_from: Some(from),
            at: self.clock.now(),
        };
        self.store.append_core_version(&new).await.map_err(|e| match e {
            StoreError::Changed { current } => CoreError::Changed { current },
            other => other.into(),
        })
    }

    pub async fn set_company_core_limit(&self, actor: &Person, slug: &RoleSlug, limit: u32) -> Result<(), CoreError> {
        let scope = CoreScope::Company(slug.clone());
        let subject = self.core_subject(&scope).await?;
        let role = subject.role.clone().ok_or_else(|| CoreError::NotFound(format!("There is no role {slug}")))?;
        if !actor.is_admin {
            return Err(CoreError::NotAllowed(format!(
                "Only an admin can change the company core limit for {}",
                role.name
            )));
        }
        let current = self.store.current_core(&scope).await?;
        check_company_limit(&role, limit, current.map(|c| c.tokens).unwrap_or(0))?;
        self.store.set_company_core_limit(role.id, limit, self.actor(actor)).await.map_err(Into::into)
    }

    /// Files a suggested line for a core's owners. Jobs call this; it never changes the core.
    pub async fn suggest_core_line(
        &self,
        scope: &CoreScope,
        line: &str,
        why: &str,
        rests_on: &str,
        source: &str,
    ) -> Result<Suggestion, CoreError> {
        self.core_subject(scope).await?;
        let line = line.trim();
        if line.is_empty() || line.contains('\n') {
            return Err(CoreError::Invalid("A suggestion is one non-empty line".to_string()));
        }
        crate::secrets::refuse("The suggested line", line).map_err(CoreError::Secret)?;
        crate::secrets::refuse("Why it is suggested", why).map_err(CoreError::Secret)?;
        let based_on = self.store.current_core(scope).await?.map(|c| c.version).unwrap_or(0);
        self.store
            .add_suggestion(&NewSuggestion {
                scope: scope.clone(),
                line: line.to_string(),
                why: why.trim().to_string(),
                rests_on: rests_on.trim().to_string(),
                source: source.to_string(),
                based_on,
                at: self.clock.now(),
            })
            .await
            .map_err(Into::into)
    }

    async fn open_suggestion(&self, actor: &Person, id: i64) -> Result<(Suggestion, CoreSubject), CoreError> {
        let s = self
            .store
            .suggestion(id)
            .await?
            .ok_or_else(|| CoreError::NotFound("There is no such suggestion".to_string()))?;
        let subject = self.core_subject(&s.scope).await?;
        subject.may_edit(actor)?;
        if s.state != SuggestionState::Open {
            return Err(CoreError::SuggestionDecided(s.state.as_str().to_string()));
        }
        Ok((s, subject))
    }

    /// Saves the suggested line as a new version; refused, and left open, if the core moved on
    /// since it was suggested or the line would not fit.
    pub async fn accept_suggestion(&self, actor: &Person, id: i64) -> Result<CoreVersion, CoreError> {
        let (s, subject) = self.open_suggestion(actor, id).await?;
        let current = self.store.current_core(&s.scope).await?;
        let current_version = current.as_ref().map(|c| c.version).unwrap_or(0);
        if current_version != s.based_on {
            return Err(CoreError::SuggestionStale { current: current_version });
        }
        let text = text_with_line(current.as_ref().map(|c| c.text.as_str()).unwrap_or(""), &s.line);
        let tokens = count_tokens(&text);
        if tokens > subject.limit() {
            return Err(CoreError::SuggestionOverLimit { tokens, limit: subject.limit() });
        }
        let new = NewCoreVersion {
            scope: s.scope.clone(),
            based_on: s.based_on,
            text,
            tokens,
            author: actor.id,
            note: format!("Accepted a suggestion from the {}", s.source),
            restored_from: None,
            at: self.clock.now(),
        };
        self.store.accept_suggestion(id, &new).await.map_err(|e| match e {
            StoreError::Changed { current } => CoreError::SuggestionStale { current },
            StoreError::NotFound(_) => CoreError::SuggestionDecided("decided".to_string()),
            other => other.into(),
        })
    }

    pub async fn dismiss_suggestion(&self, actor: &Person, id: i64) -> Result<(), CoreError> {
        self.open_suggestion(actor, id).await?;
        self.store.dismiss_suggestion(id, self.actor(actor)).await.map_err(|e| match e {
            StoreError::NotFound(_) => CoreError::SuggestionDecided("decided".to_string()),
            other => other.into(),
        })
    }
}

/// A store failure is the backend's, never the person's: it becomes this error's internal case,
/// whose detail is logged at the edge and never shown.
impl From<StoreError> for CoreError {
    fn from(e: StoreError) -> Self {
        CoreError::Internal(e.to_string())
    }
}

#[cfg(test)]
#[path = "service_tests.rs"]
mod tests;
