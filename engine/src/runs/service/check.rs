//! The check after an answer: the facts the answer used that are due are read again from their
//! source, as the person, and what changed is shown under the answer. A watched ask shows its
//! answer first and then its check; an unwatched one (an API token) returns only once checked.

use super::*;
use crate::runs::block::{BlockCard, BlockSnapshot};
use crate::runs::check::{summarise, CheckEnd, CheckState};
use crate::runs::Run;

impl Answering {
    /// What an answer's check starts as: "checking" when something the block showed is due (a
    /// list snapshot always is: its query runs once more), else "not needed". A run for nobody or
    /// without cards or lists needs none.
    pub(super) async fn check_start(
        &self,
        person: Option<&Person>,
        cards: &[BlockCard],
        lists: &[BlockSnapshot],
    ) -> CheckState {
        if person.is_none() || (cards.is_empty() && lists.is_empty()) {
            return CheckState::NotNeeded;
        }
        if !lists.is_empty() {
            return CheckState::Checking;
        }
        match self.cards.any_due(cards).await {
            Ok(true) => CheckState::Checking,
            Ok(false) => CheckState::NotNeeded,
            Err(e) => {
                // Still checked: reading the cards again will say what it can.
                tracing::warn!(error = %e, "could not tell whether an answer's facts are due");
                CheckState::Checking
            }
        }
    }

    /// Reads again what the answer used and records what it found, in one write. A failure to
    /// read leaves the answer "not checked" with the reason; it never fails the run.
    #[tracing::instrument(
        name = "memory.check",
        skip_all,
        fields(
            otel.name = "memory.check",
            engram.run.id = r.id.0,
            engram.check.cards = cards.len(),
            engram.check.lists = lists.len(),
            engram.check.state = tracing::field::Empty,
            engram.check.facts = tracing::field::Empty,
            engram.check.changed = tracing::field::Empty,
        )
    )]
    pub(super) async fn check_answer(
        &self,
        r: &Run,
        person: &Person,
        cards: &[BlockCard],
        lists: &[BlockSnapshot],
    ) -> Result<Run, RunError> {
        let checked = match self.cards.running_agent(r.agent).await {
            Ok(agent) => match self.cards.check_cards(person, &agent, cards).await {
                Ok(c) => self.cards.check_lists(person, &agent, lists).await.map(|l| (c, l)),
                Err(e) => Err(e),
            },
            Err(e) => Err(e),
        };
        let end = match &checked {
            Ok((c, l)) => summarise(c, l),
            Err(e) => {
                tracing::warn!(error = %e, "an answer's check could not read what it used");
                CheckEnd::not_checked("its memory could not be read")
            }
        };
        let span = tracing::Span::current();
        span.record("engram.check.state", end.state.as_str());
        span.record("engram.check.facts", end.facts.len());
        span.record("engram.check.changed", end.facts.iter().filter(|f| f.2).count());
        // Only the server whose check stands moves the lessons it contradicts.
        if self.save_check(r.id, &end).await? {
            if let Ok((c, _)) = &checked {
                self.contradict(r, person, c).await;
            }
        }
        self.store.run(r.id).await?.ok_or_else(|| RunError::NotFound("There is no such run".into()))
    }
}

impl Answering {
    /// Records a check; `false` when another server recorded this run's check first, whose stands.
    pub(super) async fn save_check(&self, run: crate::runs::RunId, end: &CheckEnd) -> Result<bool, RunError> {
        match self.store.record_check(run, end, self.now()).await {
            Ok(notices) => {
                for n in notices {
                    tracing::info!(connector = n.connector, kind = n.kind.as_str(), "a limit may be too long");
                }
                Ok(true)
            }
            Err(crate::kernel::StoreError::Changed { .. }) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    /// Whether the person's runs show their answers only once checked: their department role or
    /// their main team is set so by an admin. A failure to read it shows the answer at once.
    pub(super) async fn checked_only_for(&self, person: Option<&Person>) -> bool {
        let Some(p) = person else { return false };
        let scopes = match self.store.checked_only().await {
            Ok(s) if s.is_empty() => return false,
            Ok(s) => s,
            Err(e) => {
                tracing::warn!(error = %e, "could not read which roles and teams show only checked answers");
                return false;
            }
        };
        if p.main_team.is_some_and(|t| scopes.contains(&format!("team:{}", t.0))) {
            return true;
        }
        match self.cards.role_slug(p).await {
            Ok(Some(slug)) => scopes.contains(&format!("role:{slug}")),
            Ok(None) => false,
            Err(e) => {
                tracing::warn!(error = %e, "could not read a person's role for checked-only answers");
                false
            }
        }
    }
}

impl Runs {
    /// The roles ("role:<slug>") and teams ("team:<id>") whose people see only checked answers.
    pub async fn checked_only_scopes(&self, admin: &Person) -> Result<Vec<String>, RunError> {
        Self::only_admins(admin)?;
        Ok(self.store.checked_only().await?)
    }

    /// Whether a role ("role:<slug>") or a team ("team:<id>") shows only checked answers.
    pub async fn is_checked_only(&self, admin: &Person, scope: &str) -> Result<bool, RunError> {
        Self::only_admins(admin)?;
        Ok(self.store.checked_only().await?.iter().any(|s| s == scope))
    }

    /// Sets a role or a team to show only checked answers, or back; admins only, audited.
    pub async fn set_checked_only(&self, admin: &Person, scope: &str, on: bool) -> Result<String, RunError> {
        Self::only_admins(admin)?;
        let name = match scope.split_once(':') {
            Some(("role", slug)) => {
                let slug = crate::org::RoleSlug::parse(slug)
                    .map_err(|_| RunError::NotFound("There is no such role".into()))?;
                let role =
                    self.store.role(&slug).await?.ok_or_else(|| RunError::NotFound("There is no such role".into()))?;
                format!("The {} role", role.name)
            }
            Some(("team", id)) => {
                let id = id.parse::<i64>().map_err(|_| RunError::NotFound("There is no such team".into()))?;
                let team = self
                    .store
                    .team(crate::org::TeamId(id))
                    .await?
                    .ok_or_else(|| RunError::NotFound("There is no such team".into()))?;
                format!("The {} team", team.name)
            }
            _ => return Err(RunError::Invalid("Choose a role or a team".into())),
        };
        let actor = crate::kernel::Actor { person: Some(admin.id), at: self.now() };
        self.store.set_checked_only(scope, on, actor).await?;
        Ok(if on {
            format!("{name} now sees answers only once they are checked")
        } else {
            format!("{name} now sees answers at once, then their check")
        })
    }

    fn only_admins(p: &Person) -> Result<(), RunError> {
        if p.is_admin {
            Ok(())
        } else {
            Err(RunError::NotAllowed("Only an admin can choose who sees only checked answers".into()))
        }
    }
}
