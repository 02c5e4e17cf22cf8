//! The memory settings' rules, tried against the in-memory directory and a ledger of spend: who
//! may see and change the budget, and the day its spend is counted on. No database.

use super::*;
use crate::clock::ManualClock;
use crate::kernel::model::Spend;
use crate::kernel::{PersonId, RunId, StoreError};
use crate::learning::nightly::{BudgetStop, NightlyStore, Queued, WorkKind};
use crate::lessons::Evidence;
use crate::org::fake::{person, WithOrg};
use crate::org::{Company, TimeZoneName};
use crate::runs::Run;
use chrono::{DateTime, Utc};
use std::sync::Mutex;

/// The budget an admin set, who set it, and what was spent on which day.
#[derive(Default)]
struct Ledger {
    budget: Mutex<Option<(u32, Option<PersonId>)>>,
    spent: Vec<(String, u64)>,
}

type Fake = WithOrg<Ledger>;

fn unsupported(what: &str) -> StoreError {
    StoreError::Backend(format!("the fake does not {what}"))
}

#[async_trait::async_trait]
impl NightlyStore for Fake {
    async fn nightly_queue(&self) -> Result<Vec<Queued>, StoreError> {
        Err(unsupported("queue the night's work"))
    }
    async fn runs_to_read(&self, _: PersonId, _: RunId, _: u32) -> Result<Vec<Run>, StoreError> {
        Err(unsupported("read runs"))
    }
    async fn mark_read(&self, _: PersonId, _: &[WorkKind], _: RunId) -> Result<(), StoreError> {
        Err(unsupported("mark runs read"))
    }
    async fn record_budget_stop(&self, _: &BudgetStop, _: &[PersonId]) -> Result<(), StoreError> {
        Err(unsupported("record stops"))
    }
    async fn budget_stops(&self, _: u32) -> Result<Vec<BudgetStop>, StoreError> {
        Ok(vec![])
    }
    async fn add_spend(&self, _: &Spend) -> Result<(), StoreError> {
        Err(unsupported("count spend"))
    }
    async fn spent_on(&self, local_date: &str) -> Result<u64, StoreError> {
        Ok(self.rows.spent.iter().filter(|(d, _)| d == local_date).map(|(_, m)| m).sum())
    }
    async fn memory_budget(&self) -> Result<Option<u32>, StoreError> {
        Ok(self.rows.budget.lock().expect("the ledger").map(|(c, _)| c))
    }
    async fn set_memory_budget(&self, cents: u32, actor: Actor) -> Result<(), StoreError> {
        *self.rows.budget.lock().expect("the ledger") = Some((cents, actor.person));
        Ok(())
    }
    async fn confirm_lesson(&self, _: i64, _: &[Evidence], _: DateTime<Utc>) -> Result<(), StoreError> {
        Err(unsupported("confirm lessons"))
    }
}

const ADMIN: PersonId = PersonId(1);
const MEMBER: PersonId = PersonId(2);
const LEFT: PersonId = PersonId(3);

/// A company in Asia/Kolkata, at 20:00 UTC on 1 December: already 2 December there.
fn settings() -> (MemorySettings, Arc<Fake>) {
    let mut gone = person(3, "Gil", true, None);
    gone.left_at = Some(Utc::now());
    let org = crate::org::fake::FakeOrg::with(
        vec![person(1, "Ada", true, None), person(2, "Max", false, None), gone],
        vec![],
        vec![],
    );
    *org.company.lock().expect("the company") = Some(Company {
        name: "Acme".into(),
        time_zone: TimeZoneName::parse("Asia/Kolkata").expect("a zone"),
        locale: Default::default(),
    });
    let ledger =
        Ledger { budget: Mutex::default(), spent: vec![("2026-12-01".into(), 90_000), ("2026-12-02".into(), 1_750)] };
    let fake = Arc::new(WithOrg { org, rows: ledger });
    let at = DateTime::parse_from_rfc3339("2026-12-01T20:00:00Z").expect("a time").with_timezone(&Utc);
    (MemorySettings::new(fake.clone(), Arc::new(ManualClock::new(at))), fake)
}

fn who(fake: &Fake, id: PersonId) -> Person {
    fake.org.person_now(id).expect("in the directory")
}

#[tokio::test]
async fn the_spend_shown_is_todays_in_the_companys_zone_against_the_budget() {
    let (settings, fake) = settings();
    let view = settings.settings(&who(&fake, ADMIN)).await.expect("an admin reads them");
    assert_eq!((view.budget_cents, view.is_default), (DEFAULT_BUDGET_CENTS, true));
    assert_eq!(
        view.spent_line,
        format!("Spent today (2026-12-02, in the company's zone): 1.75 of {DEFAULT_BUDGET_CENTS} cents.")
    );

    let saved = settings.set_budget(&who(&fake, ADMIN), " 350 ").await.expect("saved");
    assert_eq!(saved, format!("Saved. Memory's model calls may spend {} a day.", cents(350)));
    assert_eq!(*fake.rows.budget.lock().expect("the ledger"), Some((350, Some(ADMIN))), "saved as the admin");
    let view = settings.settings(&who(&fake, ADMIN)).await.expect("read again");
    assert_eq!((view.budget_cents, view.is_default), (350, false));
}

#[tokio::test]
async fn only_a_current_admin_sees_or_changes_the_budget() {
    let (settings, fake) = settings();
    for p in [MEMBER, LEFT] {
        let read = settings.settings(&who(&fake, p)).await.unwrap_err();
        assert_eq!(read, LessonError::NotAllowed(ADMINS_ONLY.into()));
        let write = settings.set_budget(&who(&fake, p), "0").await.unwrap_err();
        assert_eq!(write, LessonError::NotAllowed(ADMINS_ONLY.into()));
    }
    assert_eq!(*fake.rows.budget.lock().expect("the ledger"), None, "nothing was saved");
}

#[tokio::test]
async fn a_budget_that_is_not_whole_cents_within_bounds_changes_nothing() {
    let (settings, fake) = settings();
    let refused = settings.set_budget(&who(&fake, ADMIN), "2.5").await.unwrap_err();
    assert_eq!(
        refused.to_string(),
        format!("The daily budget is a whole number of cents, from 0 to {MAX_BUDGET_CENTS}")
    );
    assert_eq!(*fake.rows.budget.lock().expect("the ledger"), None);
}

#[tokio::test]
async fn the_locale_sets_how_values_read_and_a_bad_one_or_a_non_admin_changes_nothing() {
    let (settings, fake) = settings();
    let view = settings.settings(&who(&fake, ADMIN)).await.expect("read");
    assert_eq!(view.locale, "en-US", "the default until an admin says");
    assert_eq!(view.locale_sample, "₹1,850,000 · $48,000.50 · 12,345,678 · Dec 5, 2026");

    let saved = settings.set_locale(&who(&fake, ADMIN), " en_in ").await.expect("saved");
    assert_eq!(saved, "Saved. Values now read as in en-IN: ₹18,50,000 · $48,000.50 · 1,23,45,678 · 5 Dec 2026.");
    let view = settings.settings(&who(&fake, ADMIN)).await.expect("read again");
    assert_eq!(view.locale, "en-IN");

    let refused = settings.set_locale(&who(&fake, ADMIN), "klingon").await.unwrap_err();
    assert_eq!(refused.to_string(), "klingon is not a locale name, such as en-IN or en-US");
    for p in [MEMBER, LEFT] {
        let write = settings.set_locale(&who(&fake, p), "de").await.unwrap_err();
        assert_eq!(write, LessonError::NotAllowed(ADMINS_ONLY.into()));
    }
    let company = fake.org.company.lock().expect("the company").clone().expect("a company");
    assert_eq!(company.locale.as_str(), "en-IN", "neither the bad locale nor a non-admin changed it");
}
