//! The cores' store: versions appended only if based on the current one, and suggestions; and
//! what the cores' service holds.

use super::{CoreHead, CoreScope, CoreVersion, NewCoreVersion, NewSuggestion, RunCores, Suggestion};
use crate::kernel::{Actor, RoleId, StoreError, TeamId};
use async_trait::async_trait;

#[async_trait]
pub trait CoreStore: Send + Sync {
    async fn current_core(&self, scope: &CoreScope) -> Result<Option<CoreVersion>, StoreError>;
    /// The current version of every role's company core and every team's core that has one, in
    /// one read: one row a role or team, as many as the outline lists, never their texts.
    async fn current_core_heads(&self) -> Result<Vec<CoreHead>, StoreError>;
    /// The role and the team with the current version of each one's core, in one read: what a
    /// run's cores are chosen from. `None` when there is no such role.
    async fn cores_for_run(&self, role: RoleId, team: Option<TeamId>) -> Result<Option<RunCores>, StoreError>;
    /// Versions newest first: those older than `before` when it is given, at most `limit`. Keyset
    /// paging, so a page costs the same however long the history grows.
    async fn core_versions(
        &self,
        scope: &CoreScope,
        before: Option<u32>,
        limit: u32,
    ) -> Result<Vec<CoreVersion>, StoreError>;
    async fn core_version(&self, scope: &CoreScope, version: u32) -> Result<Option<CoreVersion>, StoreError>;
    /// Appends `based_on + 1` if and only if `based_on` is still the current version, atomically.
    async fn append_core_version(&self, new: &NewCoreVersion) -> Result<CoreVersion, StoreError>;

    async fn suggestions(&self, scope: &CoreScope) -> Result<Vec<Suggestion>, StoreError>;
    async fn suggestion(&self, id: i64) -> Result<Option<Suggestion>, StoreError>;
    async fn add_suggestion(&self, new: &NewSuggestion) -> Result<Suggestion, StoreError>;
    /// Appends the version and marks the suggestion accepted in one transaction; refuses with
    /// `Changed` when the core moved past `new.based_on`, leaving the suggestion open.
    async fn accept_suggestion(&self, id: i64, new: &NewCoreVersion) -> Result<CoreVersion, StoreError>;
    async fn dismiss_suggestion(&self, id: i64, actor: Actor) -> Result<(), StoreError>;
}

crate::port!(
    /// What the cores' service reads and writes: the cores' store, and the directory it decides
    /// who may edit a core by.
    CorePorts: CoreStore, crate::org::store::OrgStore
);
