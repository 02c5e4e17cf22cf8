//! The organisation's use cases: roles, teams and their leads, people's roles, agents' roles, and
//! the rules for someone who leaves. Each checks who is asking and what the rules allow, then makes
//! one store call.

// Setting up hashes the first admin's password, which only the host build can.
#[cfg(feature = "server")]
mod setup;
#[cfg(feature = "server")]
pub use setup::SetupRequest;

use crate::clock::Clock;
use crate::kernel::{Actor, StoreError};
use crate::org::store::OrgPorts;
use crate::org::COMPANY_CORE_LIMIT;
use crate::org::{parse_role_name, AgentId, Directory, OrgError, Person, PersonId, Role, RoleId, RoleSlug};
use std::sync::Arc;

mod agents;
pub use agents::{AgentAccess, ToolsetChoice};
#[cfg(feature = "server")]
mod people;
use crate::org::people::LAST_ADMIN;
#[cfg(feature = "server")]
pub use people::{closed_link, AddPerson, InviteLink};
mod listing;
mod teams;
pub use teams::TeamEdit;
#[cfg(feature = "server")]
mod import;
#[cfg(feature = "server")]
pub use import::ImportBy;

/// The organisation's use cases, one a field; roles, the directory, set-up and import stay here.
#[derive(Clone)]
pub struct OrgService {
    /// People: adding, invites, passwords, admins, roles, and leaving.
    pub people: People,
    /// Teams, their leads and who manages whom.
    pub teams: Teams,
    /// Company and private agents: roles, toolsets, clearance and memory scopes.
    pub agents: Agents,
    store: Arc<dyn OrgPorts>,
    clock: Arc<dyn Clock>,
    #[cfg(feature = "server")]
    throttle: Arc<crate::auth::throttle::SignInThrottle>,
}

/// People: adding, invites, passwords, admins, roles, and leaving.
#[derive(Clone)]
pub struct People {
    store: Arc<dyn crate::org::store::PeoplePorts>,
    clock: Arc<dyn Clock>,
    /// Wrong current passwords count with sign-in's, so the two share one count.
    #[cfg(feature = "server")]
    throttle: Arc<crate::auth::throttle::SignInThrottle>,
}

/// Teams, their leads and who manages whom.
#[derive(Clone)]
pub struct Teams {
    store: Arc<dyn crate::org::store::TeamPorts>,
    clock: Arc<dyn Clock>,
}

/// Company and private agents: roles, toolsets, clearance and memory scopes.
#[derive(Clone)]
pub struct Agents {
    store: Arc<dyn crate::org::store::AgentPorts>,
    clock: Arc<dyn Clock>,
}

/// Who made a change, and when.
fn actor_of(clock: &dyn Clock, person: &Person) -> Actor {
    Actor { person: Some(person.id), at: clock.now() }
}

async fn known_role<S: crate::org::store::OrgStore + ?Sized>(store: &S, role: Option<RoleId>) -> Result<(), OrgError> {
    if let Some(r) = role {
        store.role_by_id(r).await?.ok_or_else(|| OrgError::NotFound("There is no such role".to_string()))?;
    }
    Ok(())
}

async fn known_person<S: crate::org::store::OrgStore + ?Sized>(
    store: &S,
    person: PersonId,
) -> Result<Person, OrgError> {
    store.person(person).await?.ok_or_else(|| OrgError::NotFound("There is no such person".to_string()))
}

impl OrgService {
    pub fn new(store: Arc<dyn OrgPorts>, clock: Arc<dyn Clock>) -> Self {
        #[cfg(feature = "server")]
        let throttle: Arc<crate::auth::throttle::SignInThrottle> = Arc::default();
        Self {
            people: People {
                store: store.clone(),
                clock: clock.clone(),
                #[cfg(feature = "server")]
                throttle: throttle.clone(),
            },
            teams: Teams { store: store.clone(), clock: clock.clone() },
            agents: Agents { store: store.clone(), clock: clock.clone() },
            store,
            clock,
            #[cfg(feature = "server")]
            throttle,
        }
    }

    #[cfg(feature = "server")]
    /// Counts wrong current passwords with sign-in's throttle, so the two share one count.
    pub fn sharing_throttle(self, throttle: Arc<crate::auth::throttle::SignInThrottle>) -> Self {
        let people = People { throttle: throttle.clone(), ..self.people };
        Self { throttle, people, ..self }
    }

    pub async fn directory(&self) -> Result<Directory, StoreError> {
        self.store.directory().await
    }

    /// The teams, roles and company agents, never the people: what a page names them from.
    pub async fn outline(&self) -> Result<crate::org::listing::Outline, StoreError> {
        self.store.outline().await
    }

    /// One person, those who left too.
    pub async fn person(&self, id: PersonId) -> Result<Option<Person>, StoreError> {
        self.store.person(id).await
    }

    /// The people with these ids, those who left too, by name: the few a page names.
    pub async fn people_by_ids(&self, ids: &[PersonId]) -> Result<Vec<Person>, StoreError> {
        self.store.people_by_ids(ids).await
    }

    /// "New role": admins add a department role, starting with the default company core limit.
    pub async fn create_role(&self, actor: &Person, name: &str) -> Result<Role, OrgError> {
        if !actor.is_admin {
            return Err(OrgError::NotAllowed("Only an admin can add a role".to_string()));
        }
        let name = parse_role_name(name)?;
        let slug = RoleSlug::from_name(&name)?;
        self.store.create_role(&slug, &name, COMPANY_CORE_LIMIT, actor_of(&*self.clock, actor)).await.map_err(|e| {
            match e {
                StoreError::Duplicate(_) => OrgError::Duplicate(format!("There is already a role called {name}")),
                other => other.into(),
            }
        })
    }
}

impl People {
    /// Admins give someone their own department role, or send them back to their team's.
    pub async fn set_person_role(
        &self,
        actor: &Person,
        person: PersonId,
        role: Option<RoleId>,
    ) -> Result<(), OrgError> {
        if !actor.is_admin {
            return Err(OrgError::NotAllowed("Only an admin can change someone's department role".to_string()));
        }
        known_person(&*self.store, person).await?;
        known_role(&*self.store, role).await?;
        self.store.set_person_role(person, role, actor_of(&*self.clock, actor)).await.map_err(Into::into)
    }

    /// An admin marks someone as left: they are signed out everywhere and their memory of
    /// records goes. Returns the sentence the admin reads.
    pub async fn person_leaves(&self, actor: &Person, person: PersonId) -> Result<String, OrgError> {
        if !actor.is_admin {
            return Err(OrgError::NotAllowed("Only an admin can mark someone as left".to_string()));
        }
        if actor.id == person {
            return Err(OrgError::Invalid("You cannot mark yourself as left; ask another admin".to_string()));
        }
        let p = known_person(&*self.store, person).await?;
        if p.left_at.is_some() {
            return Err(OrgError::Invalid(format!("{} has already left", p.name)));
        }
        let d = self.store.mark_left(person, actor_of(&*self.clock, actor)).await.map_err(|e| match e {
            StoreError::LastAdmin => OrgError::Invalid(LAST_ADMIN.to_string()),
            other => other.into(),
        })?;
        let plural = |n: u32, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        Ok(format!(
            "{} has left: they can no longer sign in, {} revoked, and {} and {} read as them are gone.",
            p.name,
            plural(d.tokens, "token", "tokens"),
            plural(d.uses, "kept record", "kept records"),
            plural(d.cards, "card", "cards"),
        ))
    }
}

impl Agents {
    /// Whoever manages an agent (its owner, or an admin) may change its department role.
    pub async fn set_agent_role(&self, actor: &Person, agent: AgentId, role: Option<RoleId>) -> Result<(), OrgError> {
        let a = match self.store.agent(agent).await? {
            Some(a) if a.visible_to(actor.id) => a,
            _ => return Err(OrgError::NotFound("There is no such agent".to_string())),
        };
        if a.private && role.is_some() {
            return Err(OrgError::Invalid("A private agent has no department role".to_string()));
        }
        if !(actor.is_admin || a.owner == actor.id) {
            return Err(OrgError::NotAllowed(format!(
                "Only {}'s owner or an admin can change its department role",
                a.name
            )));
        }
        known_role(&*self.store, role).await?;
        self.store.set_agent_role(agent, role, actor_of(&*self.clock, actor)).await.map_err(Into::into)
    }
}

/// A store failure is the backend's, never the person's: it becomes this error's internal case,
/// whose detail is logged at the edge and never shown.
impl From<StoreError> for OrgError {
    fn from(e: StoreError) -> Self {
        OrgError::Internal(e.to_string())
    }
}
