//! The organisation's use cases: roles, teams and their leads, people's roles, agents' roles, and
//! the rules for someone who leaves. Each checks who is asking and what the rules allow, then makes
//! one store call.

// Setting up hashes the first admin's password, which only the host build can.
#[cfg(feature = "server")]
mod setup;
#[cfg(feature = "server")]
pub use setup::SetupRequest;

use crate::clock::Clock;
use crate::cores::COMPANY_CORE_LIMIT;
use crate::org::{parse_role_name, AgentId, Directory, OrgError, Person, PersonId, Role, RoleId, RoleSlug, TeamId};
use crate::store::{Actor, Store, StoreError};
use std::sync::Arc;

#[cfg(feature = "server")]
mod import;
#[cfg(feature = "server")]
pub use import::ImportBy;

#[derive(Clone)]
pub struct OrgService {
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
}

impl OrgService {
    pub fn new(store: Arc<dyn Store>, clock: Arc<dyn Clock>) -> Self {
        Self { store, clock }
    }

    fn actor(&self, person: &Person) -> Actor {
        Actor { person: Some(person.id), at: self.clock.now() }
    }

    pub async fn directory(&self) -> Result<Directory, StoreError> {
        self.store.directory().await
    }

    /// "New role": admins add a department role, starting with the default company core limit.
    pub async fn create_role(&self, actor: &Person, name: &str) -> Result<Role, OrgError> {
        if !actor.is_admin {
            return Err(OrgError::NotAllowed("Only an admin can add a role".to_string()));
        }
        let name = parse_role_name(name)?;
        let slug = RoleSlug::from_name(&name)?;
        self.store.create_role(&slug, &name, COMPANY_CORE_LIMIT, self.actor(actor)).await.map_err(|e| match e {
            StoreError::Duplicate(_) => OrgError::Duplicate(format!("There is already a role called {name}")),
            other => other.into(),
        })
    }

    async fn known_role(&self, role: Option<RoleId>) -> Result<(), OrgError> {
        if let Some(r) = role {
            self.store.role_by_id(r).await?.ok_or_else(|| OrgError::NotFound("There is no such role".to_string()))?;
        }
        Ok(())
    }

    async fn known_person(&self, person: PersonId) -> Result<Person, OrgError> {
        self.store.person(person).await?.ok_or_else(|| OrgError::NotFound("There is no such person".to_string()))
    }

    /// Admins put a team in a role, under Teams on Roles and core knowledge.
    pub async fn set_team_role(&self, actor: &Person, team: TeamId, role: Option<RoleId>) -> Result<(), OrgError> {
        if !actor.is_admin {
            return Err(OrgError::NotAllowed("Only an admin can put a team in a role".to_string()));
        }
        self.store.team(team).await?.ok_or_else(|| OrgError::NotFound("There is no such team".to_string()))?;
        self.known_role(role).await?;
        self.store.set_team_role(team, role, self.actor(actor)).await.map_err(Into::into)
    }

    pub async fn set_team_lead(&self, actor: &Person, team: TeamId, lead: Option<PersonId>) -> Result<(), OrgError> {
        if !actor.is_admin {
            return Err(OrgError::NotAllowed("Only an admin can choose a team's lead".to_string()));
        }
        self.store.team(team).await?.ok_or_else(|| OrgError::NotFound("There is no such team".to_string()))?;
        if let Some(p) = lead {
            let p = self.known_person(p).await?;
            if p.left_at.is_some() {
                return Err(OrgError::Invalid(format!("{} has left and cannot lead a team", p.name)));
            }
        }
        self.store.set_team_lead(team, lead, self.actor(actor)).await.map_err(Into::into)
    }

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
        self.known_person(person).await?;
        self.known_role(role).await?;
        self.store.set_person_role(person, role, self.actor(actor)).await.map_err(Into::into)
    }

    /// An admin sets (or clears) a person's manager: a current person, never themselves, and never
    /// so that managers go round in a circle.
    pub async fn set_manager(&self, by: &Person, person: PersonId, manager: Option<PersonId>) -> Result<(), OrgError> {
        if !by.is_admin {
            return Err(OrgError::NotAllowed("Only an admin can set a person's manager".to_string()));
        }
        self.known_person(person).await?;
        if let Some(m) = manager {
            if m == person {
                return Err(OrgError::Invalid("A person cannot be their own manager".to_string()));
            }
            let m = self.known_person(m).await?;
            if m.left_at.is_some() {
                return Err(OrgError::NotFound("There is no such person".to_string()));
            }
            // Up the new manager's chain: meeting the person there would close a circle. The
            // chain is checked for a circle of its own too, so a broken one cannot loop here.
            let mut seen = vec![m.id];
            let mut above = m.manager;
            while let Some(next) = above {
                if next == person {
                    return Err(OrgError::Invalid("That would make a circle of managers".to_string()));
                }
                if seen.contains(&next) {
                    break;
                }
                seen.push(next);
                above = self.store.person(next).await?.and_then(|p| p.manager);
            }
        }
        self.store.set_manager(person, manager, self.actor(by)).await.map_err(Into::into)
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
        let p = self.known_person(person).await?;
        if p.left_at.is_some() {
            return Err(OrgError::Invalid(format!("{} has already left", p.name)));
        }
        let d = self.store.mark_left(person, self.actor(actor)).await?;
        let plural = |n: u32, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        Ok(format!(
            "{} has left: they can no longer sign in, {} revoked, and {} and {} read as them are gone.",
            p.name,
            plural(d.tokens, "token", "tokens"),
            plural(d.uses, "kept record", "kept records"),
            plural(d.cards, "card", "cards"),
        ))
    }

    /// Whoever manages an agent (its owner, or an admin) may change its department role.
    pub async fn set_agent_role(&self, actor: &Person, agent: AgentId, role: Option<RoleId>) -> Result<(), OrgError> {
        let a =
            self.store.agent(agent).await?.ok_or_else(|| OrgError::NotFound("There is no such agent".to_string()))?;
        if !(actor.is_admin || a.owner == actor.id) {
            return Err(OrgError::NotAllowed(format!(
                "Only {}'s owner or an admin can change its department role",
                a.name
            )));
        }
        self.known_role(role).await?;
        self.store.set_agent_role(agent, role, self.actor(actor)).await.map_err(Into::into)
    }
}

/// A store failure is the backend's, never the person's: it becomes this error's internal case,
/// whose detail is logged at the edge and never shown.
impl From<StoreError> for OrgError {
    fn from(e: StoreError) -> Self {
        OrgError::Internal(e.to_string())
    }
}
