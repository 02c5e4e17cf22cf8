//! Learning: what memory learns on its own. The nightly job reads the day's runs and keeps
//! lessons; Draft from what exists drafts a core from cores, lessons and answers. It stands above
//! runs, lessons and cores, which it reads, and nothing below imports it.

pub mod draft;
pub mod nightly;

crate::port!(
    /// What learning reads and writes: it stands on top, so any area's store below it (the
    /// private agents among org's), and the spend ledger its model calls are counted in.
    LearningPorts: nightly::NightlyStore,
    nightly::settings::SettingsPorts,
    draft::DraftSourceStore,
    crate::lessons::LessonPorts,
    crate::cores::store::CorePorts,
    crate::org::agents::AgentAdminStore,
    crate::cards::store::ConnectorStore,
    crate::cards::store::ForgettingStore,
    crate::runs::store::RunStore,
    crate::kernel::model::SpendLedger
);
