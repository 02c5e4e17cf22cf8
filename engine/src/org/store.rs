//! The organisation's store: what the company, its people, teams, roles and agents read and
//! write, and what the organisation's service holds.

use super::listing::{Outline, PrefixSearch, TeamSize};
use super::{
    Agent, AgentId, AuditEntry, Company, Departure, Directory, LocaleName, NewAgent, NewPerson, Person, PersonId, Role,
    RoleId, RoleSlug, Team, TeamId,
};
use crate::kernel::{Actor, DataLabel, StoreError};
use async_trait::async_trait;

/// What the store reads around a person for the slice.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Around {
    pub team: Option<Team>,
    pub team_role: Option<String>,
    pub lead: Option<Person>,
    pub manager: Option<Person>,
    /// Bounded by the store; the slice's budget cuts further.
    pub teammates: Vec<Person>,
}

/// The organisation read in bounded pieces: what every page that lists people, and every picker of
/// a person, reads, so what they cost does not grow with the organisation. Its own trait, so the
/// reads that must stay bounded are written, reviewed and tested together.
#[async_trait]
pub trait OrgListing: Send + Sync {
    /// The teams, roles and company agents, each by name, in one snapshot; never the people.
    async fn outline(&self) -> Result<Outline, StoreError>;
    /// People by name then id, those who left too, at most `limit` from `offset`; with a search,
    /// only those whose name or email starts with it, or whose main team's name does, and of each
    /// of those three ways only the first `search.considers` in that way's order (the folded name
    /// then name and id; the email; the main team's id, then name and id), so a search reads a
    /// bounded number of rows whatever the organisation's size.
    async fn people_page(
        &self,
        search: Option<&PrefixSearch>,
        offset: u32,
        limit: u32,
    ) -> Result<Vec<Person>, StoreError>;
    /// Whether more than `search.considers` people match one of the search's ways (name, email,
    /// main team's name): a page then lists only those considered. Reads at most that many and
    /// one more of each way.
    async fn search_overflows(&self, search: &PrefixSearch) -> Result<bool, StoreError>;
    /// A page of a search and whether it overflows: what `people_page` and `search_overflows`
    /// answer, which a store may read at once (the SQL stores do, in one statement).
    async fn search_page(
        &self,
        search: &PrefixSearch,
        offset: u32,
        limit: u32,
    ) -> Result<(Vec<Person>, bool), StoreError> {
        Ok((self.people_page(Some(search), offset, limit).await?, self.search_overflows(search).await?))
    }
    /// Current people whose name or email starts with the search, by name, at most `limit`: what a
    /// person picker offers as someone types. Of each way, only the first `search.considers`
    /// current people are considered, as for a page.
    async fn pick_people(&self, search: &PrefixSearch, limit: u32) -> Result<Vec<Person>, StoreError>;
    /// Current people whose whole name is `name`, ignoring case in A to Z, by id, at most `limit`.
    async fn people_named(&self, name: &str, limit: u32) -> Result<Vec<Person>, StoreError>;
    /// The people with these ids, those who left too, by name.
    async fn people_by_ids(&self, ids: &[PersonId]) -> Result<Vec<Person>, StoreError>;
    /// A team's current members by name then id, at most `limit` from `offset`.
    async fn team_members(&self, team: TeamId, offset: u32, limit: u32) -> Result<Vec<Person>, StoreError>;
    /// How many current people each team has as their main team (those with none under `None`),
    /// kept as people are added, moved and leave, so reading it counts nobody. Teams with nobody
    /// are left out.
    async fn team_sizes(&self) -> Result<Vec<TeamSize>, StoreError>;
    /// Current people with these emails (case-insensitive), for the owners named on cards.
    async fn people_by_emails(&self, emails: &[String]) -> Result<Vec<Person>, StoreError>;
}

/// The company, its people, teams, roles and agents: their reads by id, their writes (each with its
/// audit row) and the audit log; with [`OrgListing`], everything the organisation's store is.
#[async_trait]
pub trait OrgStore: OrgListing + Send + Sync {
    async fn company(&self) -> Result<Option<Company>, StoreError>;
    async fn create_company(&self, company: &Company, actor: Actor) -> Result<(), StoreError>;
    /// Sets how numbers and dates read, with its audit row; `NotFound` before setup.
    async fn set_company_locale(&self, locale: &LocaleName, actor: Actor) -> Result<(), StoreError>;
    /// Everyone and everything, for exports and tools that need the whole organisation. No page
    /// or run reads it: they read [`OrgListing::outline`] and bounded pages of people.
    async fn directory(&self) -> Result<Directory, StoreError>;
    async fn person(&self, id: PersonId) -> Result<Option<Person>, StoreError>;
    /// The person and their password hash, by email (case-insensitive).
    async fn credentials(&self, email: &str) -> Result<Option<(Person, String)>, StoreError>;
    async fn role(&self, slug: &RoleSlug) -> Result<Option<Role>, StoreError>;
    async fn role_by_id(&self, id: RoleId) -> Result<Option<Role>, StoreError>;
    async fn team(&self, id: TeamId) -> Result<Option<Team>, StoreError>;
    /// The team with its role, in one read.
    async fn team_with_role(&self, id: TeamId) -> Result<Option<(Team, Option<Role>)>, StoreError>;
    async fn agent(&self, id: AgentId) -> Result<Option<Agent>, StoreError>;

    async fn create_role(&self, slug: &RoleSlug, name: &str, limit: u32, actor: Actor) -> Result<Role, StoreError>;
    async fn create_team(&self, name: &str, role: Option<RoleId>, actor: Actor) -> Result<Team, StoreError>;
    async fn create_person(&self, person: &NewPerson, actor: Actor) -> Result<Person, StoreError>;
    async fn create_agent(&self, agent: &NewAgent, actor: Actor) -> Result<Agent, StoreError>;

    async fn set_team_role(&self, team: TeamId, role: Option<RoleId>, actor: Actor) -> Result<(), StoreError>;
    async fn set_team_lead(&self, team: TeamId, lead: Option<PersonId>, actor: Actor) -> Result<(), StoreError>;
    async fn set_person_role(&self, person: PersonId, role: Option<RoleId>, actor: Actor) -> Result<(), StoreError>;
    /// What the who's-who slice needs around a person, in bounded reads: their main team, its
    /// role's name and lead, their manager, and at most `teammates` teammates (current people
    /// only, by name).
    async fn around(&self, person: PersonId, teammates: u32) -> Result<Around, StoreError>;
    async fn set_agent_role(&self, agent: AgentId, role: Option<RoleId>, actor: Actor) -> Result<(), StoreError>;
    async fn set_company_core_limit(&self, role: RoleId, limit: u32, actor: Actor) -> Result<(), StoreError>;
    /// Replaces a person's password hash (after a move, every hash is one no password matches);
    /// `NotFound` for no such person or one who has left.
    async fn set_password_hash(&self, person: PersonId, hash: &str, actor: Actor) -> Result<(), StoreError>;
    /// The person leaves, in one transaction: they can no longer sign in; their API tokens and the
    /// bot tokens they made are revoked; their memory of records goes (their use rows, the cards
    /// read as them, their own keys, Prepare my day). Their row stays, so history still names them.
    /// `LastAdmin` when they are the last current admin, decided inside the transaction.
    async fn mark_left(&self, person: PersonId, actor: Actor) -> Result<Departure, StoreError>;

    async fn audit_log(&self, limit: u32) -> Result<Vec<AuditEntry>, StoreError>;
}

/// A connector as a toolset an agent may hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toolset {
    pub id: i64,
    pub name: String,
    pub label: DataLabel,
    /// The slugs of the roles it admits; empty admits everyone in the company.
    pub admits_roles: Vec<String>,
}

/// What an agent's page and its toolsets need from the areas above org (connectors are the
/// cards', playbooks the learning's). Org names what it needs here; the store's roof answers it
/// from those areas' stores, so org never imports them.
#[async_trait]
pub trait AgentSurroundings: Send + Sync {
    /// Every connector, as a toolset.
    async fn toolsets(&self) -> Result<Vec<Toolset>, StoreError>;
    /// The agent's playbook as last saved, if anyone wrote one.
    async fn agent_playbook(&self, agent: AgentId) -> Result<Option<String>, StoreError>;
    /// The label the agent's model is cleared for and the toolsets it holds; `None` for no such
    /// agent.
    async fn held_access(&self, agent: AgentId) -> Result<Option<(DataLabel, Vec<i64>)>, StoreError>;
}

crate::port!(
    /// What the people's use cases need: the directory and people's own records.
    PeoplePorts: OrgStore, super::people::PeopleStore
);
crate::port!(
    /// What the teams' use cases need: the directory and the teams.
    TeamPorts: OrgStore, super::teams::TeamStore
);
crate::port!(
    /// What the agents' use cases need: the directory, the agents' settings and memory scopes, and
    /// what surrounds an agent (toolsets, playbooks).
    AgentPorts: OrgStore, AgentSurroundings, super::agents::AgentAdminStore, super::memory_scopes::MemoryScopeStore
);

crate::port!(
    /// What the organisation's service reads and writes: org's own stores, and nothing above them.
    OrgPorts: PeoplePorts,
    TeamPorts,
    AgentPorts,
    super::setup::SetupStore,
    super::import::ImportStore
);
