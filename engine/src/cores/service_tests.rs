//! The cores' rules, tried against the in-memory directory and a list of versions: who may
//! change a core, a save based on an old version, limits, and restores. No database.

use super::*;
use crate::clock::ManualClock;
use crate::cores::store::CoreStore;
use crate::cores::{CoreHead, RunCores, COMPANY_CORE_LIMIT_MAX};
use crate::kernel::{RoleId, TeamId};
use crate::org::fake::{person, role, WithOrg};
use crate::org::{PersonId, Team};
use async_trait::async_trait;
use std::sync::Mutex;

/// The versions appended, in order, and the suggestions filed.
#[derive(Default)]
struct CoreRows {
    versions: Mutex<Vec<CoreVersion>>,
    suggestions: Mutex<Vec<Suggestion>>,
}

type Fake = WithOrg<CoreRows>;

fn versions_of(fake: &Fake, scope: &CoreScope) -> Vec<CoreVersion> {
    fake.rows.versions.lock().expect("the rows").iter().filter(|v| &v.scope == scope).cloned().collect()
}

#[async_trait]
impl CoreStore for Fake {
    async fn current_core(&self, scope: &CoreScope) -> Result<Option<CoreVersion>, StoreError> {
        Ok(versions_of(self, scope).pop())
    }
    async fn current_core_heads(&self) -> Result<Vec<CoreHead>, StoreError> {
        let versions = self.rows.versions.lock().expect("the rows");
        let mut heads: Vec<CoreHead> = Vec::new();
        for v in versions.iter() {
            heads.retain(|h| h.scope != v.scope);
            heads.push(CoreHead { scope: v.scope.clone(), version: v.version, tokens: v.tokens });
        }
        Ok(heads)
    }
    async fn cores_for_run(&self, _: RoleId, _: Option<TeamId>) -> Result<Option<RunCores>, StoreError> {
        Err(StoreError::Backend("the fake does not build a run's cores".into()))
    }
    async fn core_versions(
        &self,
        scope: &CoreScope,
        before: Option<u32>,
        limit: u32,
    ) -> Result<Vec<CoreVersion>, StoreError> {
        let mut all = versions_of(self, scope);
        all.reverse();
        Ok(all.into_iter().filter(|v| before.is_none_or(|b| v.version < b)).take(limit as usize).collect())
    }
    async fn core_version(&self, scope: &CoreScope, version: u32) -> Result<Option<CoreVersion>, StoreError> {
        Ok(versions_of(self, scope).into_iter().find(|v| v.version == version))
    }
    /// As the real stores: appended only when `based_on` is still the current version.
    async fn append_core_version(&self, new: &NewCoreVersion) -> Result<CoreVersion, StoreError> {
        let current = versions_of(self, &new.scope).last().map(|v| v.version).unwrap_or(0);
        if new.based_on != current {
            return Err(StoreError::Changed { current });
        }
        let v = CoreVersion {
            scope: new.scope.clone(),
            version: current + 1,
            text: new.text.clone(),
            tokens: new.tokens,
            author: new.author.to_string(),
            note: new.note.clone(),
            restored_from: new.restored_from,
            saved_at: new.at,
        };
        self.rows.versions.lock().expect("the rows").push(v.clone());
        Ok(v)
    }
    async fn suggestions(&self, scope: &CoreScope) -> Result<Vec<Suggestion>, StoreError> {
        Ok(self.rows.suggestions.lock().expect("the rows").iter().filter(|s| &s.scope == scope).cloned().collect())
    }
    async fn suggestion(&self, id: i64) -> Result<Option<Suggestion>, StoreError> {
        Ok(self.rows.suggestions.lock().expect("the rows").iter().find(|s| s.id == id).cloned())
    }
    async fn add_suggestion(&self, _: &NewSuggestion) -> Result<Suggestion, StoreError> {
        Err(StoreError::Backend("the fake files no suggestions".into()))
    }
    async fn accept_suggestion(&self, _: i64, _: &NewCoreVersion) -> Result<CoreVersion, StoreError> {
        Err(StoreError::Backend("the fake files no suggestions".into()))
    }
    async fn dismiss_suggestion(&self, _: i64, _: Actor) -> Result<(), StoreError> {
        Err(StoreError::Backend("the fake files no suggestions".into()))
    }
}

const ADMIN: PersonId = PersonId(1);
const LEAD: PersonId = PersonId(2);
const MEMBER: PersonId = PersonId(3);

/// Sales (a role) with the team Field Sales, led by Lena; Max is in it; Ada is the admin.
fn cores() -> (CoreService, Arc<Fake>) {
    let org = crate::org::fake::FakeOrg::with(
        vec![person(1, "Ada", true, None), person(2, "Lena", false, Some(1)), person(3, "Max", false, Some(1))],
        vec![Team { id: TeamId(1), name: "Field Sales".into(), lead: Some(LEAD), role: Some(RoleId(1)) }],
        vec![role(1, "Sales")],
    );
    let fake = Arc::new(WithOrg { org, rows: CoreRows::default() });
    let clock = Arc::new(ManualClock::new(chrono::Utc::now()));
    (CoreService::new(fake.clone(), clock), fake)
}

fn who(fake: &Fake, id: PersonId) -> Person {
    fake.org.person_now(id).expect("in the directory")
}

fn company() -> CoreScope {
    CoreScope::Company(RoleSlug::parse("sales").expect("a slug"))
}

#[tokio::test]
async fn only_an_admin_changes_a_company_core_and_a_team_lead_their_teams() {
    let (cores, fake) = cores();
    let lead = who(&fake, LEAD);
    let refused = cores.save_core(&lead, &company(), 0, "Quote in INR.", "first").await.unwrap_err();
    assert_eq!(refused, CoreError::NotAllowed("Only an admin can change the company core for Sales".into()));
    assert!(versions_of(&fake, &company()).is_empty(), "a refused save writes nothing");

    let team = CoreScope::Team(TeamId(1));
    cores.save_core(&lead, &team, 0, "Visit twice a month.", "first").await.expect("the lead saves");
    let member = cores.save_core(&who(&fake, MEMBER), &team, 1, "Visit weekly.", "mine").await.unwrap_err();
    assert_eq!(member, CoreError::NotAllowed("Only Field Sales's lead or an admin can change this core".into()));
    assert_eq!(versions_of(&fake, &team).len(), 1);
}

#[tokio::test]
async fn a_save_based_on_an_old_version_is_refused_never_written_over() {
    let (cores, fake) = cores();
    let admin = who(&fake, ADMIN);
    cores.save_core(&admin, &company(), 0, "Quote in INR.", "first").await.expect("v1");
    cores.save_core(&admin, &company(), 1, "Quote in INR. Never promise dates.", "dates").await.expect("v2");
    // A second admin opened version 1 and saves after the first admin's version 2.
    let late = cores.save_core(&admin, &company(), 1, "Quote in USD.", "currency").await.unwrap_err();
    assert_eq!(late, CoreError::Changed { current: 2 });
    let kept = versions_of(&fake, &company());
    assert_eq!(kept.len(), 2);
    assert_eq!(kept[1].text, "Quote in INR. Never promise dates.");
}

#[tokio::test]
async fn a_restore_is_a_new_version_and_must_still_fit_a_lowered_limit() {
    let (cores, fake) = cores();
    let admin = who(&fake, ADMIN);
    let sales = RoleSlug::parse("sales").expect("a slug");
    cores.set_company_core_limit(&admin, &sales, COMPANY_CORE_LIMIT_MAX).await.expect("raised");
    let long = "Every deal over one lakh needs a second look from finance before the quote. ".repeat(180);
    cores.save_core(&admin, &company(), 0, &long, "long").await.expect("v1 fits the raised limit");
    cores.save_core(&admin, &company(), 1, "Short now.", "short").await.expect("v2");
    let restored = cores.restore_core(&admin, &company(), 1, 2).await.expect("v1 restored");
    assert_eq!((restored.version, restored.restored_from), (3, Some(1)));
    assert_eq!(restored.note, "Restored version 1");

    cores.save_core(&admin, &company(), 3, "Short again.", "short").await.expect("v4");
    cores.set_company_core_limit(&admin, &sales, crate::org::COMPANY_CORE_LIMIT).await.expect("lowered");
    let tokens = versions_of(&fake, &company())[0].tokens;
    assert!(tokens > crate::org::COMPANY_CORE_LIMIT, "the long text is over the default limit: {tokens}");
    let over = cores.restore_core(&admin, &company(), 1, 4).await.unwrap_err();
    assert_eq!(over, CoreError::OverLimit { tokens, limit: crate::org::COMPANY_CORE_LIMIT });
    assert_eq!(versions_of(&fake, &company()).len(), 4, "nothing over the limit was appended");
}

#[tokio::test]
async fn a_core_holding_a_secret_is_refused_and_nothing_is_saved() {
    let (cores, fake) = cores();
    let admin = who(&fake, ADMIN);
    let refused = cores
        .save_core(&admin, &company(), 0, "Use the key sk-live-4f9aZ7qL2xW8eR1tY6uI0oP3 for billing.", "key")
        .await
        .unwrap_err();
    assert!(matches!(refused, CoreError::Secret(_)), "{refused:?}");
    assert!(versions_of(&fake, &company()).is_empty());
}

#[tokio::test]
async fn the_roles_overview_shows_each_cores_current_version_and_size() {
    let (cores, fake) = cores();
    let admin = who(&fake, ADMIN);
    cores.save_core(&admin, &company(), 0, "Quote in INR.", "first").await.expect("v1");
    cores.save_core(&admin, &company(), 1, "Quote in INR. Never promise dates.", "dates").await.expect("v2");
    let overview = cores.roles_overview(&admin).await.expect("the overview");
    let tokens = versions_of(&fake, &company())[1].tokens;
    assert_eq!(
        overview.roles.iter().map(|r| (r.role.name.as_str(), r.version, r.tokens)).collect::<Vec<_>>(),
        [("Sales", Some(2), tokens)]
    );
    assert_eq!(overview.teams.iter().map(|t| (t.version, t.tokens)).collect::<Vec<_>>(), [(None, 0)]);

    cores.save_core(&admin, &CoreScope::Team(TeamId(1)), 0, "Visit twice a month.", "first").await.expect("team v1");
    let overview = cores.roles_overview(&admin).await.expect("the overview");
    let team_tokens = versions_of(&fake, &CoreScope::Team(TeamId(1)))[0].tokens;
    assert_eq!(overview.teams.iter().map(|t| (t.version, t.tokens)).collect::<Vec<_>>(), [(Some(1), team_tokens)]);
    assert_eq!(overview.roles[0].version, Some(2), "the company core is unchanged");
}
