#![allow(unused_variables, unused_imports)]
use super::{not_yet, PgStore};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use engine::cores::{CoreScope, CoreVersion, NewCoreVersion, NewSuggestion, Suggestion, SuggestionState};
use engine::org::{
    Agent, AgentId, AuditEntry, Company, Directory, Person, PersonId, Role, RoleId, RoleSlug, Team, TeamId,
    TimeZoneName,
};
use engine::store::{Actor, ApiTokenInfo, CoreStore, Departure, NewAgent, NewPerson, OrgStore, StoreError, TokenStore};

#[async_trait]
impl OrgStore for PgStore {
    async fn company(&self) -> Result<Option<Company>, StoreError> {
        Err(not_yet())
    }

    async fn create_company(&self, company: &Company, actor: Actor) -> Result<(), StoreError> {
        Err(not_yet())
    }

    async fn directory(&self) -> Result<Directory, StoreError> {
        Err(not_yet())
    }

    async fn person(&self, id: PersonId) -> Result<Option<Person>, StoreError> {
        Err(not_yet())
    }

    async fn credentials(&self, email: &str) -> Result<Option<(Person, String)>, StoreError> {
        Err(not_yet())
    }

    async fn role(&self, slug: &RoleSlug) -> Result<Option<Role>, StoreError> {
        Err(not_yet())
    }

    async fn role_by_id(&self, id: RoleId) -> Result<Option<Role>, StoreError> {
        Err(not_yet())
    }

    async fn team(&self, id: TeamId) -> Result<Option<Team>, StoreError> {
        Err(not_yet())
    }

    async fn agent(&self, id: AgentId) -> Result<Option<Agent>, StoreError> {
        Err(not_yet())
    }

    async fn create_role(&self, slug: &RoleSlug, name: &str, limit: u32, actor: Actor) -> Result<Role, StoreError> {
        Err(not_yet())
    }

    async fn create_team(&self, name: &str, role: Option<RoleId>, actor: Actor) -> Result<Team, StoreError> {
        Err(not_yet())
    }

    async fn create_person(&self, p: &NewPerson, actor: Actor) -> Result<Person, StoreError> {
        Err(not_yet())
    }

    async fn create_agent(&self, a: &NewAgent, actor: Actor) -> Result<Agent, StoreError> {
        Err(not_yet())
    }

    async fn set_team_role(&self, team: TeamId, role: Option<RoleId>, actor: Actor) -> Result<(), StoreError> {
        Err(not_yet())
    }

    async fn set_team_lead(&self, team: TeamId, lead: Option<PersonId>, actor: Actor) -> Result<(), StoreError> {
        Err(not_yet())
    }

    async fn set_person_role(&self, person: PersonId, role: Option<RoleId>, actor: Actor) -> Result<(), StoreError> {
        Err(not_yet())
    }

    async fn mark_left(&self, person: PersonId, actor: Actor) -> Result<Departure, StoreError> {
        Err(not_yet())
    }

    async fn set_agent_role(&self, agent: AgentId, role: Option<RoleId>, actor: Actor) -> Result<(), StoreError> {
        Err(not_yet())
    }

    async fn set_company_core_limit(&self, role: RoleId, limit: u32, actor: Actor) -> Result<(), StoreError> {
        Err(not_yet())
    }

    async fn audit_log(&self, limit: u32) -> Result<Vec<AuditEntry>, StoreError> {
        Err(not_yet())
    }

}

#[async_trait]
impl CoreStore for PgStore {
    async fn current_core(&self, scope: &CoreScope) -> Result<Option<CoreVersion>, StoreError> {
        Err(not_yet())
    }

    async fn core_versions(&self, scope: &CoreScope) -> Result<Vec<CoreVersion>, StoreError> {
        Err(not_yet())
    }

    async fn core_version(&self, scope: &CoreScope, version: u32) -> Result<Option<CoreVersion>, StoreError> {
        Err(not_yet())
    }

    async fn append_core_version(&self, new: &NewCoreVersion) -> Result<CoreVersion, StoreError> {
        Err(not_yet())
    }

    async fn suggestions(&self, scope: &CoreScope) -> Result<Vec<Suggestion>, StoreError> {
        Err(not_yet())
    }

    async fn suggestion(&self, id: i64) -> Result<Option<Suggestion>, StoreError> {
        Err(not_yet())
    }

    async fn add_suggestion(&self, new: &NewSuggestion) -> Result<Suggestion, StoreError> {
        Err(not_yet())
    }

    async fn accept_suggestion(&self, id: i64, new: &NewCoreVersion) -> Result<CoreVersion, StoreError> {
        Err(not_yet())
    }

    async fn dismiss_suggestion(&self, id: i64, actor: Actor) -> Result<(), StoreError> {
        Err(not_yet())
    }

}

#[async_trait]
impl TokenStore for PgStore {
    async fn create_api_token(
        &self,
        person: PersonId,
        name: &str,
        secret_hash: &str,
        actor: Actor,
    ) -> Result<ApiTokenInfo, StoreError> {
        Err(not_yet())
    }

    async fn api_tokens(&self, person: PersonId) -> Result<Vec<ApiTokenInfo>, StoreError> {
        Err(not_yet())
    }

    async fn revoke_api_token(&self, person: PersonId, id: i64, actor: Actor) -> Result<bool, StoreError> {
        Err(not_yet())
    }

    async fn person_by_token(&self, secret_hash: &str, at: DateTime<Utc>) -> Result<Option<Person>, StoreError> {
        Err(not_yet())
    }

}
