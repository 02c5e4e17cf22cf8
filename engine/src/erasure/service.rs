//! `Erasures`: an admin (or the host's operator on the command line) erases a third party's email
//! address or phone number. Who may is decided first, then what was given is read, then the store
//! removes everything naming it in one write and audits it with the value's keyed hash.

use super::{Erased, ErasureError, ErasureOutcome, ErasurePorts, ErasureRecord, Naming, NotAValue, ValueKind};
use crate::kernel::Actor;
use crate::org::Person;
use crate::Clock;
use std::sync::Arc;

/// The refusal anyone but a current admin gets.
pub const ADMIN_ONLY: &str = "Only an admin can erase a third party's address or number";

/// Who erases: an admin, or the operator of the host (the command line without `--as`), who is
/// trusted as the one who runs the server.
#[derive(Debug, Clone, Copy)]
pub enum ErasureBy<'a> {
    Person(&'a Person),
    HostOperator,
}

/// What the page shows back while an admin types, before anything is erased: "Erases every
/// spelling of the email address dana.brooks@litware.example." The value is the admin's own
/// typing, shown only to them.
pub fn shown_back(given: &str) -> Result<String, NotAValue> {
    let naming = Naming::parse(given)?;
    let kind = match naming.kind() {
        ValueKind::Email => "the email address",
        ValueKind::Phone => "the phone number ending",
    };
    Ok(format!("Erases every spelling of {kind} {}.", naming.canonical()))
}

#[derive(Clone)]
pub struct Erasures {
    store: Arc<dyn ErasurePorts>,
    clock: Arc<dyn Clock>,
}

impl Erasures {
    pub fn new(store: Arc<dyn ErasurePorts>, clock: Arc<dyn Clock>) -> Self {
        Self { store, clock }
    }

    /// Erases the value `given` names. Who may comes first, so someone who may not learns nothing
    /// about what they gave; then a value that is not one email address or phone number is refused
    /// before anything is read or written.
    pub async fn erase(&self, by: ErasureBy<'_>, given: &str) -> Result<Erased, ErasureError> {
        let person = match by {
            ErasureBy::Person(p) if p.is_admin && p.left_at.is_none() => Some(p.id),
            ErasureBy::Person(_) => return Err(ErasureError::NotAllowed(ADMIN_ONLY.to_string())),
            ErasureBy::HostOperator => None,
        };
        let naming = Naming::parse(given)?;
        let record = ErasureRecord { kind: naming.kind(), hash: self.store.keyed_hash(&naming.hashed_text()).await? };
        let actor = Actor { person, at: self.clock.now() };
        match self.store.erase_naming(&naming, &record, actor).await? {
            ErasureOutcome::Erased(counts) => {
                tracing::info!(
                    by = ?person.map(|p| p.0),
                    kind = record.kind.as_str(),
                    removed = counts.total(),
                    "erased a third party's value"
                );
                Ok(Erased { kind: record.kind, counts })
            }
            ErasureOutcome::InDirectory { name } => Err(ErasureError::Invalid(format!(
                "That is the email address of {name}, in the company's directory: only a third party's address or \
                 number is erased here. Nothing was changed."
            ))),
        }
    }
}

#[cfg(test)]
#[path = "service_tests.rs"]
mod tests;
