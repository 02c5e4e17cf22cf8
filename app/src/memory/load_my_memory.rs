use crate::flash::Notice;
use engine::cards::service::{CardView, ForgottenView};
use engine::cards::store::PrepareSetting;
use engine::lessons::service::{LessonView, MyLessons, ProposalView};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MyMemoryData {
    pub cards: Vec<CardView>,
    pub prepare: PrepareSetting,
    pub prepare_line: String,
    pub notice: Option<Notice>,
    /// The card Forget asks about, when it is asking.
    pub confirm: Option<CardView>,
    /// The lesson Forget asks about, when it is asking.
    pub confirm_lesson: Option<LessonView>,
    /// Connectors that read with people's own keys: (id, name, whether this person gave theirs).
    pub own_keys: Vec<(i64, String, bool)>,
    /// The person's own zone; none means the company's.
    pub own_zone: Option<String>,
    /// Records they forgot that are still kept out; each can be pinned back.
    pub forgotten: Vec<ForgottenView>,
    /// What they typed into Prepare my day when the save was refused, kept for the form.
    pub prepare_draft: Option<PrepareDraft>,
    /// What I've learned: their lessons in use and those no longer current.
    pub lessons: MyLessons,
    /// A lesson whose keeping was refused, as it was typed.
    pub lesson_draft: Option<LessonDraft>,
    /// A correction that was refused, as it was typed.
    pub correct_draft: Option<CorrectDraft>,
    /// The proposals this person reviews, when they review any.
    pub review: Vec<ProposalView>,
}

/// Keep a lesson's form as typed: its text and whom it was for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LessonDraft {
    pub text: String,
    pub scope: String,
}

/// A correction as typed, and the lesson it was for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CorrectDraft {
    pub id: i64,
    pub text: String,
}

/// Prepare my day's form as typed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrepareDraft {
    pub enabled: bool,
    pub at_time: String,
    pub zone: String,
}

/// The flash a refused Prepare my day save leaves its text under.
pub const PREPARE_DRAFT: &str = "prepare-my-day";
/// The flash a refused lesson leaves its text under.
pub const LESSON_DRAFT: &str = "own-lesson";
/// The flash a refused correction leaves its text under.
pub const CORRECT_DRAFT: &str = "lesson-correction";

/// Only the person, signed in as themselves, reads their cards.
#[server(prefix = "/fn", endpoint = "load_my_memory")]
pub async fn load_my_memory(forget: Option<i64>, forget_lesson: Option<i64>) -> Result<MyMemoryData, ServerFnError> {
    use crate::flash::{draft_key, notice_key};
    use crate::paths::MY_MEMORY;
    use crate::ssr::*;
    let me = signed_in().await?;
    let memory = memory()?;
    let cards = memory.mine.my_cards(&me).await.map_err(refused)?;
    let (prepare, prepare_line) = memory.prepare.prepare_status(&me).await.map_err(refused)?;
    let notice = take_flash(&notice_key(MY_MEMORY)).await?;
    let confirm = forget.and_then(|id| cards.iter().find(|c| c.card == id).cloned());
    let own_keys = memory.connectors.own_key_connectors(&me).await.map_err(refused)?;
    let own_zone = memory.prepare.own_zone(&me).await.map_err(refused)?;
    let forgotten = memory.reads.forgotten(&me).await.map_err(refused)?;
    let prepare_draft = take_flash(&draft_key(PREPARE_DRAFT)).await?;
    let review = lessons()?.review_queue(&me).await.map_err(refused)?;
    let lessons = lessons()?.mine(&me).await.map_err(refused)?;
    let confirm_lesson =
        forget_lesson.and_then(|id| lessons.in_use.iter().find(|l| l.id == id && l.yours_to_change).cloned());
    let lesson_draft = take_flash(&draft_key(LESSON_DRAFT)).await?;
    let correct_draft = take_flash(&draft_key(CORRECT_DRAFT)).await?;
    Ok(MyMemoryData {
        cards,
        prepare,
        prepare_line,
        notice,
        confirm,
        confirm_lesson,
        own_keys,
        own_zone,
        forgotten,
        prepare_draft,
        lessons,
        lesson_draft,
        correct_draft,
        review,
    })
}
