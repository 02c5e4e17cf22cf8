//! What a person sees of their cards, tried against the in-memory directory and lists of
//! connectors and kept cards: each card is decided when it is read, a card no tool may keep goes,
//! a use whose person is no longer admitted goes, and an admin sees counts, never content. No
//! database and no source: nothing here reads a connected system.

use super::*;
use crate::cards::access::{DataLabel as Label, KeyKind};
use crate::cards::facts::FactLimits;
use crate::cards::pins::{Listed, ToolCopy, ToolPin};
use crate::cards::snapshots::{ListSnapshot, NewSnapshot, SnapshotStore};
use crate::cards::source::{CardField, Freshness, KeyMode, ReadKey, SourceError, ToolInfo};
use crate::cards::store::{
    Card, CardUse, ConnectorStore, KeptCardStore, KeptForQuestion, NewCard, NewConnector, OpenWhen,
};
use crate::kernel::{AgentId, RoleId, TeamId};
use crate::org::fake::{person, role, WithOrg};
use crate::org::Team;
use std::sync::Mutex;

#[derive(Default)]
struct CardRows {
    connectors: Vec<Connector>,
    shapes: Mutex<Vec<RecordShape>>,
    kept: Mutex<Vec<(Card, CardUse)>>,
    /// What went, and why: ("card", id, reason) or ("use", id, reason).
    removed: Mutex<Vec<(&'static str, i64, String)>>,
}

type Fake = WithOrg<CardRows>;

fn unsupported(what: &str) -> StoreError {
    StoreError::Backend(format!("the fake does not {what}"))
}

#[async_trait::async_trait]
impl ConnectorStore for Fake {
    async fn connectors(&self) -> Result<Vec<Connector>, StoreError> {
        Ok(self.rows.connectors.clone())
    }
    async fn connector(&self, id: i64) -> Result<Option<Connector>, StoreError> {
        Ok(self.rows.connectors.iter().find(|c| c.id == id).cloned())
    }
    async fn create_connector(&self, _: &NewConnector, _: Option<&str>, _: Actor) -> Result<Connector, StoreError> {
        Err(unsupported("add connectors"))
    }
    async fn company_key(&self, _: i64) -> Result<Option<String>, StoreError> {
        Ok(Some("company-key".into()))
    }
    async fn set_company_key(&self, _: i64, _: &str, _: Actor) -> Result<(), StoreError> {
        Err(unsupported("set keys"))
    }
    async fn person_key(&self, _: i64, _: PersonId) -> Result<Option<String>, StoreError> {
        Ok(None)
    }
    async fn set_person_key(&self, _: i64, _: PersonId, _: &str, _: Actor) -> Result<(), StoreError> {
        Err(unsupported("set keys"))
    }
    async fn shapes(&self, connector: i64) -> Result<Vec<RecordShape>, StoreError> {
        Ok(self.rows.shapes.lock().expect("the rows").iter().filter(|s| s.connector == connector).cloned().collect())
    }
    async fn save_shape(&self, _: &RecordShape, _: Option<&OpenWhen>, _: Actor) -> Result<(), StoreError> {
        Err(unsupported("save shapes"))
    }
    async fn open_when(&self, _: i64, _: &str) -> Result<Option<OpenWhen>, StoreError> {
        Ok(None)
    }
    async fn set_keep_cards(&self, _: i64, _: bool, _: Actor) -> Result<u32, StoreError> {
        Err(unsupported("change connectors"))
    }
    async fn set_key_mode(&self, _: i64, _: KeyMode, _: &[String], _: Actor) -> Result<u32, StoreError> {
        Err(unsupported("change connectors"))
    }
    async fn set_killed(&self, _: i64, _: bool, _: Actor) -> Result<(), StoreError> {
        Err(unsupported("change connectors"))
    }
    async fn update_connector(&self, _: &Connector, _: Actor) -> Result<(), StoreError> {
        Err(unsupported("change connectors"))
    }
    async fn tool_pins(&self, _: i64) -> Result<Vec<ToolPin>, StoreError> {
        Ok(vec![])
    }
    async fn pin_tool(&self, _: i64, _: &ToolCopy, _: Actor) -> Result<(), StoreError> {
        Err(unsupported("pin tools"))
    }
    async fn note_listing(&self, _: i64, _: &str, _: Option<&Listed>, _: Actor) -> Result<(), StoreError> {
        Err(unsupported("note listings"))
    }
    async fn claim_read(
        &self,
        _: i64,
        _: &str,
        _: DateTime<Utc>,
        _: u32,
        _: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        Err(unsupported("read connected systems"))
    }
    async fn agent_access(&self, _: AgentId) -> Result<Option<(Label, Vec<i64>)>, StoreError> {
        Ok(None)
    }
    async fn set_agent_access(&self, _: AgentId, _: Label, _: &[i64], _: Actor) -> Result<(), StoreError> {
        Err(unsupported("change agents"))
    }
}

#[async_trait::async_trait]
impl KeptCardStore for Fake {
    async fn upsert_card(&self, _: &NewCard) -> Result<Card, StoreError> {
        Err(unsupported("write cards"))
    }
    async fn keep_card(&self, _: &crate::cards::keep::Keep, _: Actor) -> Result<bool, StoreError> {
        Err(unsupported("keep cards"))
    }
    async fn card(&self, id: i64) -> Result<Option<Card>, StoreError> {
        Ok(self.rows.kept.lock().expect("the rows").iter().find(|(c, _)| c.id == id).map(|(c, _)| c.clone()))
    }
    async fn remove_card(&self, id: i64, reason: &str, _: Actor) -> Result<(), StoreError> {
        self.rows.kept.lock().expect("the rows").retain(|(c, _)| c.id != id);
        self.rows.removed.lock().expect("the rows").push(("card", id, reason.into()));
        Ok(())
    }
    async fn kept(&self, person: PersonId) -> Result<Vec<(Card, CardUse)>, StoreError> {
        Ok(self.rows.kept.lock().expect("the rows").iter().filter(|(_, u)| u.person == person).cloned().collect())
    }
    async fn kept_for_question(&self, _: PersonId, _: &[String], _: u32) -> Result<Vec<KeptForQuestion>, StoreError> {
        Err(unsupported("select cards for a question"))
    }
    async fn card_use(&self, person: PersonId, card: i64) -> Result<Option<CardUse>, StoreError> {
        let kept = self.rows.kept.lock().expect("the rows");
        Ok(kept.iter().find(|(c, u)| c.id == card && u.person == person).map(|(_, u)| u.clone()))
    }
    async fn save_use(&self, _: &CardUse) -> Result<(), StoreError> {
        Err(unsupported("save uses"))
    }
    async fn remove_use(&self, person: PersonId, card: i64, reason: &str, _: Actor) -> Result<(), StoreError> {
        self.rows.kept.lock().expect("the rows").retain(|(c, u)| !(c.id == card && u.person == person));
        self.rows.removed.lock().expect("the rows").push(("use", card, reason.into()));
        Ok(())
    }
    async fn counts(&self, person: PersonId) -> Result<(u32, u32), StoreError> {
        let kept = self.rows.kept.lock().expect("the rows");
        let mine: Vec<_> = kept.iter().filter(|(_, u)| u.person == person).collect();
        Ok((mine.len() as u32, mine.iter().filter(|(_, u)| u.pinned).count() as u32))
    }
}

#[async_trait::async_trait]
impl SnapshotStore for Fake {
    async fn keep_snapshot(&self, _: &NewSnapshot) -> Result<ListSnapshot, StoreError> {
        Err(unsupported("keep lists"))
    }
    async fn snapshots_of(&self, _: PersonId) -> Result<Vec<ListSnapshot>, StoreError> {
        Ok(vec![])
    }
}

/// A source that is never reached: deciding what a person sees reads nothing.
struct Unreachable;

#[async_trait::async_trait]
impl Source for Unreachable {
    async fn tools(&self, _: &str, _: &str) -> Result<Vec<ToolInfo>, SourceError> {
        Err(SourceError::Down("no source in this test".into()))
    }
    async fn call(&self, _: &str, _: Option<&str>, _: &ReadKey, _: &str, _: &Value) -> Result<Value, SourceError> {
        Err(SourceError::Down("no source in this test".into()))
    }
}

const SALES: PersonId = PersonId(1);
const ADMIN: PersonId = PersonId(2);
/// Leads, read with the company key, admits everyone.
const CRM: i64 = 1;
/// Payroll admits the finance role alone.
const PAYROLL: i64 = 2;

fn connector(id: i64, name: &str, ticked: &[&str], admits: &[&str]) -> Connector {
    Connector {
        id,
        name: name.into(),
        base_url: "http://source.invalid".into(),
        key_mode: KeyMode::Company,
        own_key_tools: vec![],
        ticked: ticked.iter().map(|t| t.to_string()).collect(),
        acting: vec![],
        write_targets: vec![],
        label: Label::Internal,
        admits_roles: admits.iter().map(|r| r.to_string()).collect(),
        keep_cards: true,
        facts: FactLimits::DEFAULT,
        free_text: Freshness { soft_mins: 30, hard_mins: 720 },
        hourly_limit: 600,
        killed: false,
        has_company_key: true,
    }
}

fn kept(id: i64, connector: i64, tool: &str, record: &str, person: PersonId, weight: f64) -> (Card, CardUse) {
    let at = Utc::now() - chrono::Duration::hours(2);
    let card = Card {
        id,
        connector,
        tool: tool.into(),
        kind: "lead".into(),
        record_id: record.into(),
        version: None,
        fields: vec![CardField { name: "stage".into(), value: "Proposal".into(), free_text: false }],
        read_with: KeyKind::Company,
        read_as: None,
        label_when_read: Label::Internal,
        open_work: false,
        read_at: at,
        not_returned: vec![],
    };
    let summary = crate::cards::activation::UseSummary { weight, first_use: Some(at), ..Default::default() };
    (card, CardUse { person, card: id, summary, pinned: false, last_use: at })
}

/// A card read with her own key, when the connector no longer reads anything with one.
fn own_key((mut card, u): (Card, CardUse)) -> (Card, CardUse) {
    card.read_with = KeyKind::OwnKey;
    card.read_as = Some(u.person);
    (card, u)
}

/// Priya in Sales keeps two leads and a payroll record she was admitted to when she was in
/// Finance; one lead was read with her own key, which Acme CRM no longer reads with.
fn memory() -> (MyCards, Arc<Fake>) {
    let org = crate::org::fake::FakeOrg::with(
        vec![person(1, "Priya", false, Some(1)), person(2, "Ada", true, None)],
        vec![Team { id: TeamId(1), name: "Field Sales".into(), lead: None, role: Some(RoleId(1)) }],
        vec![role(1, "Sales"), role(2, "Finance")],
    );
    let rows = CardRows {
        connectors: vec![
            connector(CRM, "Acme CRM", &["get_lead"], &[]),
            connector(PAYROLL, "Payroll", &["get_payslip"], &["finance"]),
        ],
        kept: Mutex::new(vec![
            kept(10, CRM, "get_lead", "L-1", SALES, 3.0),
            own_key(kept(11, CRM, "get_lead", "L-2", SALES, 5.0)),
            kept(12, PAYROLL, "get_payslip", "P-9", SALES, 9.0),
        ]),
        shapes: Mutex::default(),
        removed: Mutex::default(),
    };
    let fake = Arc::new(WithOrg { org, rows });
    let clock: Arc<dyn Clock> = Arc::new(crate::clock::ManualClock::new(Utc::now()));
    let reads = Reads { store: fake.clone(), clock, source: Arc::new(Unreachable) };
    (MyCards { reads, store: fake.clone() }, fake)
}

fn who(fake: &Fake, id: PersonId) -> Person {
    fake.org.person_now(id).expect("in the directory")
}

#[tokio::test]
async fn what_a_person_sees_is_decided_when_it_is_read_and_what_must_go_goes() {
    let (memory, fake) = memory();
    let shown = memory.my_cards(&who(&fake, SALES)).await.expect("her cards");
    assert_eq!(shown.iter().map(|v| v.record_id.as_str()).collect::<Vec<_>>(), vec!["L-1"]);
    let removed = fake.rows.removed.lock().expect("the rows").clone();
    assert_eq!(
        removed,
        vec![
            ("card", 11, "no tool of Acme CRM reads with people's own keys any more".to_string()),
            ("use", 12, "no longer admitted to Payroll".to_string()),
        ]
    );
}

#[tokio::test]
async fn an_admin_sees_that_memory_exists_never_what_it_says() {
    let (memory, fake) = memory();
    let priya = who(&fake, SALES);
    let counts = memory.counts_sentence(&who(&fake, ADMIN), &priya).await.expect("the counts");
    assert_eq!(counts, "Priya has 1 card kept (0 pinned) and 0 lists. What they say is theirs alone.");
    assert!(!counts.contains("L-1") && !counts.contains("Proposal"), "no record and no value: {counts}");
    let refused = memory.counts_sentence(&priya, &who(&fake, ADMIN)).await.unwrap_err();
    assert_eq!(refused, MemoryError::NotAllowed("Only an admin sees another person's counts".into()));
}

#[tokio::test]
async fn a_person_given_a_role_the_toolset_admits_keeps_its_card() {
    let (memory, fake) = memory();
    // Priya is given the Finance role herself: Payroll admits her, and her payslip card stays.
    fake.org.dir.lock().expect("the directory").people[0].role_override = Some(RoleId(2));
    let shown = memory.my_cards(&who(&fake, SALES)).await.expect("her cards");
    let mut records: Vec<_> = shown.iter().map(|v| v.record_id.as_str()).collect();
    records.sort();
    assert_eq!(records, vec!["L-1", "P-9"]);
    let removed = fake.rows.removed.lock().expect("the rows").clone();
    assert_eq!(removed.iter().map(|r| r.1).collect::<Vec<_>>(), vec![11], "only the untickable card went");
}

#[tokio::test]
async fn fields_read_under_their_labels_in_the_companys_locale_and_stored_values_do_not_change() {
    use crate::cards::source::ShapeField;
    use crate::locale::FieldFormat;
    let (memory, fake) = memory();
    *fake.org.company.lock().expect("the company") = Some(crate::org::Company {
        name: "Acme".into(),
        time_zone: crate::org::TimeZoneName::parse("Asia/Kolkata").expect("a zone"),
        locale: crate::org::LocaleName::parse("en-IN").expect("a locale"),
    });
    let mut stage = ShapeField::new("stage", false);
    stage.label = Some("Pipeline stage".into());
    let mut seats = ShapeField::new("seats_text", false);
    seats.format = Some(FieldFormat::Number);
    let shape = RecordShape {
        connector: CRM,
        tool: "get_lead".into(),
        kind: "lead".into(),
        id_field: "id".into(),
        version_field: None,
        fields: vec![
            ShapeField::new("contact_name", false),
            ShapeField::new("value_inr", false),
            ShapeField::new("next_follow_up", false),
            stage,
            seats,
            ShapeField::new("notes", true),
        ],
        get_tool: "get_lead".into(),
        confirmed: true,
    };
    let stored = vec![
        CardField { name: "contact_name".into(), value: "Priya Raman".into(), free_text: false },
        CardField { name: "value_inr".into(), value: "1850000".into(), free_text: false },
        CardField { name: "next_follow_up".into(), value: "2026-12-05".into(), free_text: false },
        CardField { name: "stage".into(), value: "Proposal".into(), free_text: false },
        CardField { name: "seats_text".into(), value: "1200".into(), free_text: false },
        CardField { name: "notes".into(), value: "Budget 1850000 approved".into(), free_text: true },
        // A field the shape no longer names is still shown, under a drafted label.
        CardField { name: "close_date".into(), value: "not yet".into(), free_text: false },
    ];
    fake.rows.shapes.lock().expect("the rows").push(shape);
    {
        let mut kept = fake.rows.kept.lock().expect("the rows");
        kept[0].0.fields = stored.clone();
        kept[0].0.not_returned = vec!["stage".into()];
    }
    let shown = memory.my_cards(&who(&fake, SALES)).await.expect("her cards");
    let card = &shown[0];
    let read: Vec<_> = card.shown.iter().map(|f| (f.label.as_str(), f.value.as_str(), f.unknown)).collect();
    assert_eq!(
        read,
        vec![
            ("Contact", "Priya Raman", false),
            ("Value", "₹18,50,000", false),
            ("Next follow up", "5 Dec 2026", false),
            ("Pipeline stage", "Proposal", true),
            ("Seats text", "1,200", false),
            ("Notes", "Budget 1850000 approved", false),
            ("Close date", "not yet", false),
        ]
    );
    assert_eq!(card.fields, stored, "the stored values are as the source gave them");
}
