//! The nightly job's run: who is read, in what order, within what budget, and what the model's
//! answer may change.

use super::prompt::{nightly_prompt, parse_reply, NightlyReply, RunText, NIGHTLY_SYSTEM};
use super::work::{clean, work_kind, WorkKind};
use super::{BudgetStop, Queued, Spend, DEFAULT_BUDGET_CENTS, NIGHTLY_HOUR, RUNS_PER_CALL};
use crate::clock::Clock;
use crate::cores::service::CoreService;
use crate::cores::CoreScope;
use crate::kernel::age_words;
use crate::kernel::model::{ChatModel, ModelChoice, Models};
use crate::kernel::DataLabel;
use crate::kernel::StoreError;
use crate::learning::LearningPorts;
use crate::lessons::states::EXPIRES_AFTER_DAYS;
use crate::lessons::LessonError;
use crate::lessons::{Claim, Evidence, Lesson, LessonScope, LessonState, NewLesson, WrittenBy};
use crate::org::{Directory, Person, PersonId};
use crate::runs::{MemoryRef, NewEvent, Run};
use chrono::{Duration, NaiveDate, NaiveTime};
use std::collections::BTreeMap;
use std::sync::Arc;

/// What one night did, in counts: the log line and the CLI's answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NightlyReport {
    pub local_date: String,
    pub people: u32,
    pub runs: u32,
    pub personal: u32,
    pub proposed: u32,
    pub confirmed: u32,
    pub superseded: u32,
    pub suggested: u32,
    pub expired: u32,
    /// People the budget left out; they are read first next night.
    pub left_out: u32,
    /// Calls that failed or answered out of shape: logged, and their runs read again next night.
    pub failed_calls: u32,
    /// Runs that carried data no model of memory's is cleared for: never sent, and not read.
    pub passed_over: u32,
    /// Why no model was asked, when none was.
    pub model_off: Option<String>,
}

impl NightlyReport {
    pub fn summary(&self) -> String {
        let mut s = format!(
            "The nightly job for {} read {} runs of {} people: {} personal lessons written, {} team or company lessons proposed, {} confirmed, {} superseded, {} core lines suggested, {} expired.",
            self.local_date, self.runs, self.people, self.personal, self.proposed, self.confirmed, self.superseded, self.suggested, self.expired
        );
        if self.left_out > 0 {
            s.push_str(&format!(
                " The budget ran out: {} people left out, to be read first next night.",
                self.left_out
            ));
        }
        if self.failed_calls > 0 {
            s.push_str(&format!(" {} model calls failed; their runs are read again next night.", self.failed_calls));
        }
        if self.passed_over > 0 {
            s.push_str(&format!(
                " {} runs carried data no model of memory's is cleared for, and were passed over unread.",
                self.passed_over
            ));
        }
        if let Some(why) = &self.model_off {
            s.push_str(&format!(" No model was asked: {why}."));
        }
        s
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NightlyOutcome {
    /// Before 02:00 in the company's zone, or no company yet.
    NotDue,
    /// Another server, or an earlier run, already took this day.
    AlreadyRan(String),
    Ran(NightlyReport),
}

#[derive(Clone)]
pub struct Nightly {
    /// Company → Memory settings: the budget the job works within.
    pub settings: super::settings::MemorySettings,
    pub(super) store: Arc<dyn LearningPorts>,
    pub(super) clock: Arc<dyn Clock>,
    models: Arc<dyn Models>,
    cores: CoreService,
}

/// One call's worth: one person's one kind of work.
struct Batch {
    kind: WorkKind,
    runs: Vec<Run>,
    /// The highest label of the runs: the model was chosen cleared for it.
    carried: DataLabel,
    /// The person's private agents: the directory lists none, and the runs name them.
    private: Vec<crate::org::Agent>,
}

impl Nightly {
    pub fn new(store: Arc<dyn LearningPorts>, clock: Arc<dyn Clock>, models: Arc<dyn Models>) -> Self {
        let cores = CoreService::new(store.clone(), clock.clone());
        let settings = super::settings::MemorySettings::new(store.clone(), clock.clone());
        Self { settings, store, clock, models, cores }
    }

    pub(super) async fn zone(&self) -> Result<Option<chrono_tz::Tz>, StoreError> {
        Ok(self.store.company().await?.map(|c| c.time_zone.as_str().parse().unwrap_or(chrono_tz::UTC)))
    }

    /// Checked every minute: runs the day's job once it is 02:00 in the company's zone.
    pub async fn due(&self) -> Result<NightlyOutcome, LessonError> {
        let Some(zone) = self.zone().await? else { return Ok(NightlyOutcome::NotDue) };
        let local = self.clock.now().with_timezone(&zone);
        if local.time() < NaiveTime::from_hms_opt(NIGHTLY_HOUR, 0, 0).unwrap_or(NaiveTime::MIN) {
            return Ok(NightlyOutcome::NotDue);
        }
        self.run_day(local.date_naive()).await
    }

    /// By hand (`engram jobs run nightly`): today in the company's zone, or the date given,
    /// whatever the hour, and still once a day.
    pub async fn run_now(&self, date: Option<NaiveDate>) -> Result<NightlyOutcome, LessonError> {
        let Some(zone) = self.zone().await? else {
            return Err(LessonError::Invalid("There is no company yet: run engram setup first.".into()));
        };
        let day = date.unwrap_or_else(|| self.clock.now().with_timezone(&zone).date_naive());
        self.run_day(day).await
    }

    async fn run_day(&self, day: NaiveDate) -> Result<NightlyOutcome, LessonError> {
        let local_date = day.to_string();
        // Claimed before the work, so of several servers on one database only one runs it.
        if !self.store.claim_job_run("nightly", &local_date).await? {
            return Ok(NightlyOutcome::AlreadyRan(local_date));
        }
        let mut report = NightlyReport { local_date: local_date.clone(), ..Default::default() };
        let directory = self.store.directory().await?;
        report.expired = self.expire(&directory).await?;

        if let ModelChoice::Off(why) = self.models.memory() {
            tracing::warn!(why, "the nightly job asked no model; the runs wait for the next night");
            report.model_off = Some(why);
            return Ok(NightlyOutcome::Ran(report));
        }
        let budget_cents = self.store.memory_budget().await?.unwrap_or(DEFAULT_BUDGET_CENTS);
        let budget = u64::from(budget_cents) * 1_000;
        let mut spent = self.store.spent_on(&local_date).await?;
        let queue = self.store.nightly_queue().await?;
        let mut proposed = Vec::new();
        for (i, q) in queue.iter().enumerate() {
            let Some(person) = directory.people.iter().find(|p| p.id == q.person && p.left_at.is_none()) else {
                continue;
            };
            // Checked per person, not per call: a person's kinds of work are read together, so
            // the budget never leaves one kind's mark behind the other's.
            if spent >= budget {
                let left: Vec<PersonId> = queue[i..].iter().map(|q: &Queued| q.person).collect();
                report.left_out = left.len() as u32;
                let stop = BudgetStop {
                    local_date: local_date.clone(),
                    budget_cents,
                    left_out: report.left_out,
                    at: self.clock.now(),
                };
                self.store.record_budget_stop(&stop, &left).await?;
                self.tell(NewEvent {
                    name: "memory_budget_spent".into(),
                    state: Some(local_date.clone()),
                    ..Default::default()
                })
                .await;
                tracing::warn!(
                    budget_cents,
                    left_out = report.left_out,
                    "memory's daily budget ran out; the nightly job stopped for the day"
                );
                self.digest(&proposed).await;
                return Ok(NightlyOutcome::Ran(report));
            }
            let runs = self.store.runs_to_read(q.person, q.after(), RUNS_PER_CALL).await?;
            let Some(last) = runs.iter().map(|r| r.id).max() else { continue };
            let private = self.store.private_agents(q.person).await?;
            let mut batches: BTreeMap<WorkKind, Vec<Run>> = BTreeMap::new();
            for r in runs {
                // A kind read further on an earlier night, when another kind's call failed, is
                // not read twice.
                let is_private = private.iter().any(|a| a.id == r.agent);
                if let Some(kind) = work_kind(&r, is_private).filter(|k| r.id > q.through(*k)) {
                    batches.entry(kind).or_default().push(r);
                }
            }
            let mut read = vec![WorkKind::Personal, WorkKind::Shared, WorkKind::Private];
            for (kind, runs) in batches {
                // Each run goes only to a model cleared for what it carried; one no model is
                // cleared for is never sent.
                let (runs, passed): (Vec<Run>, Vec<Run>) = runs
                    .into_iter()
                    .partition(|r| matches!(self.models.memory_cleared_for(r.data_label), ModelChoice::Use(_)));
                if !passed.is_empty() {
                    let ids: Vec<i64> = passed.iter().map(|r| r.id.0).collect();
                    tracing::warn!(?ids, "runs carried data no model of memory's is cleared for; passed over unread");
                    report.passed_over += passed.len() as u32;
                }
                let carried = runs.iter().map(|r| r.data_label).max().unwrap_or(DataLabel::Public);
                let model = match self.models.memory_cleared_for(carried) {
                    ModelChoice::Use(m) if !runs.is_empty() => m,
                    _ => continue,
                };
                report.runs += runs.len() as u32;
                match self
                    .read_batch(
                        &*model,
                        person,
                        &directory,
                        Batch { kind, runs, carried, private: private.clone() },
                        &local_date,
                        &mut report,
                    )
                    .await
                {
                    Ok((cost, ids)) => {
                        spent += cost;
                        proposed.extend(ids);
                    }
                    Err(ReadFailed { cost }) => {
                        spent += cost;
                        read.retain(|k| *k != kind);
                        report.failed_calls += 1;
                    }
                }
            }
            report.people += 1;
            if !read.is_empty() {
                self.store.mark_read(q.person, &read, last).await?;
            }
        }
        self.digest(&proposed).await;
        Ok(NightlyOutcome::Ran(report))
    }

    /// Records who no one confirmed in 90 days, everyone's, proposals included.
    async fn expire(&self, directory: &Directory) -> Result<u32, StoreError> {
        let now = self.clock.now();
        let mut n = 0;
        for p in &directory.people {
            n += self.store.expire_lessons(p.id, now - Duration::days(EXPIRES_AFTER_DAYS), now).await?;
        }
        Ok(n)
    }

    /// Events carry ids and names only; one that is not recorded is logged, never fatal.
    async fn tell(&self, event: NewEvent) {
        if let Err(e) = self.store.record_event(&event, self.clock.now()).await {
            tracing::warn!(error = %e, name = event.name, "an event of the nightly job was not recorded");
        }
    }

    /// The reviewers' digest: the ids of what waits for them, never the text.
    async fn digest(&self, proposed: &[i64]) {
        if proposed.is_empty() {
            return;
        }
        let refs = proposed.iter().map(|id| MemoryRef::Lesson(format!("lesson:{id}"))).collect();
        self.tell(NewEvent { name: "lessons_to_review".into(), refs, ..Default::default() }).await;
    }

    /// One call for one person's one kind of work, and what its answer may change. Returns what
    /// the call cost and the ids of the proposals it made.
    async fn read_batch(
        &self,
        model: &dyn ChatModel,
        person: &Person,
        directory: &Directory,
        batch: Batch,
        local_date: &str,
        report: &mut NightlyReport,
    ) -> Result<(u64, Vec<i64>), ReadFailed> {
        let now = self.clock.now();
        let mut texts = Vec::with_capacity(batch.runs.len());
        for r in &batch.runs {
            let question = match self.store.message(r.message).await {
                Ok(m) => m.map(|m| m.text).unwrap_or_default(),
                Err(e) => {
                    tracing::warn!(error = %e, run = r.id.0, "a run's question was not read");
                    return Err(ReadFailed { cost: 0 });
                }
            };
            let agent = directory
                .agents
                .iter()
                .chain(&batch.private)
                .find(|a| a.id == r.agent)
                .map(|a| a.name.clone())
                .unwrap_or_default();
            texts.push(RunText {
                id: r.id,
                agent,
                age: age_words(r.created_at, now),
                question,
                steps: r.steps.iter().map(|s| s.line.clone()).filter(|l| !l.is_empty()).collect(),
                answer: r.answer.clone().unwrap_or_default(),
            });
        }
        // The lessons this kind of work may confirm or supersede: private agents' work their
        // private agents' lessons, other work the personal ones.
        let of_kind = |l: &Lesson| match batch.kind {
            WorkKind::Private => matches!(l.scope, LessonScope::Agent(_)),
            WorkKind::Personal | WorkKind::Shared => l.scope == LessonScope::Personal,
        };
        let own: Vec<Lesson> = match self.store.lessons_of(person.id).await {
            // Only lessons the chosen model is cleared for go with the runs, or may be changed.
            Ok(ls) => ls.into_iter().filter(|l| of_kind(l) && l.in_use(now) && l.label <= batch.carried).collect(),
            Err(e) => {
                tracing::warn!(error = %e, "a person's lessons were not read");
                return Err(ReadFailed { cost: 0 });
            }
        };
        // Personal lessons are confirmed or superseded only by the person's own asks, private
        // agents' lessons only by their private agents' runs.
        let shown: Vec<(Lesson, String)> = if batch.kind != WorkKind::Shared {
            own.iter().map(|l| (l.clone(), age_words(l.valid_from, now))).collect()
        } else {
            Vec::new()
        };
        let user = nightly_prompt(&person.name, batch.kind, &texts, &shown);
        let priced = match model.chat_priced(NIGHTLY_SYSTEM, &user).await {
            Ok(p) => p,
            Err(e) => {
                tracing::warn!(error = %e, model = model.name(), "the nightly job's model call failed; the runs are read again next night");
                return Err(ReadFailed { cost: 0 });
            }
        };
        let spend = Spend {
            local_date: local_date.to_string(),
            purpose: super::NIGHTLY_PURPOSE.into(),
            model: model.name(),
            millicents: priced.millicents,
            at: now,
        };
        if let Err(e) = self.store.add_spend(&spend).await {
            tracing::warn!(error = %e, "a model call was not counted in the spend ledger");
        }
        let reply = match parse_reply(&priced.text) {
            Ok(r) => r,
            Err(why) => {
                tracing::warn!(
                    %why,
                    "the nightly job's model answered out of shape; the runs are read again next night"
                );
                return Err(ReadFailed { cost: priced.millicents });
            }
        };
        let proposed = self.apply(person, directory, &batch, &own, reply, report).await;
        Ok((priced.millicents, proposed))
    }

    /// Writes what the answer may change. Each piece stands alone: one that fails is logged and
    /// the rest go on.
    async fn apply(
        &self,
        person: &Person,
        directory: &Directory,
        batch: &Batch,
        own: &[Lesson],
        reply: NightlyReply,
        report: &mut NightlyReport,
    ) -> Vec<i64> {
        let now = self.clock.now();
        // Only runs of this batch count as evidence: an id the model made up shows nothing.
        let cited = |ids: &[i64]| -> Vec<&Run> { batch.runs.iter().filter(|r| ids.contains(&r.id.0)).collect() };
        let evidence = |runs: &[&Run]| -> Vec<Evidence> {
            runs.iter()
                .map(|r| Evidence { run: r.id, step: r.steps.last().map(|s| i64::from(s.n)).unwrap_or(0) })
                .collect()
        };
        let label = |runs: &[&Run]| runs.iter().map(|r| r.data_label).max().unwrap_or(DataLabel::Internal);
        let team = match batch.kind {
            WorkKind::Shared => batch
                .runs
                .iter()
                .find_map(|r| directory.agents.iter().find(|a| a.id == r.agent).and_then(|a| a.team_copy))
                .or(person.main_team),
            WorkKind::Personal | WorkKind::Private => None,
        };
        let mut proposed = Vec::new();
        for l in reply.lessons {
            let runs = cited(&l.runs);
            let text = l.text.trim();
            if runs.is_empty() || text.is_empty() || text.chars().count() > crate::lessons::LESSON_MAX_CHARS {
                continue;
            }
            // A secret the day's work came across never becomes a lesson; only its kind is logged.
            if let Err(refused) = crate::secrets::refuse("The lesson", text) {
                tracing::warn!(
                    kind = refused.finding.kind.words(),
                    "a lesson from the nightly job held a secret and was not written"
                );
                continue;
            }
            let (scope, state) = match (l.scope.as_str(), batch.kind) {
                // What private agents' work teaches stays with the person's private agents.
                ("personal", WorkKind::Private) => (LessonScope::Agent(runs[0].agent), LessonState::Accepted),
                ("personal", _) => (LessonScope::Personal, LessonState::Accepted),
                ("team", WorkKind::Shared) => match team {
                    Some(t) => (LessonScope::Team(t), LessonState::Waiting),
                    None => continue,
                },
                ("company", WorkKind::Shared) => (LessonScope::Company, LessonState::Waiting),
                // Personal work never proposes for the team or the company.
                _ => continue,
            };
            let new = NewLesson {
                person: person.id,
                scope,
                text: text.to_string(),
                evidence: evidence(&runs),
                label: label(&runs),
                checked_at: None,
                source_version: None,
                claim: l.claim.filter(|c: &Claim| !c.record.trim().is_empty() && !c.field.trim().is_empty()),
                state,
                confirmed: runs.len() > 1,
                written_by: WrittenBy::Job,
                at: now,
            };
            match self.store.add_lesson(&new, crate::kernel::Actor { person: None, at: now }).await {
                Ok(written) if state == LessonState::Waiting => {
                    report.proposed += 1;
                    proposed.push(written.id);
                }
                Ok(_) => report.personal += 1,
                Err(e) => tracing::warn!(error = %e, "a lesson from the nightly job was not written"),
            }
        }
        for c in reply.confirms {
            let runs = cited(&c.runs);
            if runs.is_empty() || !own.iter().any(|l| l.id == c.lesson) || batch.kind == WorkKind::Shared {
                continue;
            }
            match self.store.confirm_lesson(c.lesson, &evidence(&runs), now).await {
                Ok(()) => report.confirmed += 1,
                Err(e) => tracing::warn!(error = %e, lesson = c.lesson, "a lesson was not confirmed"),
            }
        }
        for s in reply.supersedes {
            let runs = cited(&s.runs);
            let text = s.text.trim();
            let Some(old) = own.iter().find(|l| l.id == s.lesson) else { continue };
            if runs.is_empty() || text.is_empty() || batch.kind == WorkKind::Shared {
                continue;
            }
            if let Err(refused) = crate::secrets::refuse("The lesson", text) {
                tracing::warn!(
                    kind = refused.finding.kind.words(),
                    lesson = old.id,
                    "a correction from the nightly job held a secret and was not written"
                );
                continue;
            }
            let new = NewLesson {
                person: person.id,
                scope: old.scope,
                text: text.to_string(),
                evidence: evidence(&runs),
                label: label(&runs).max(old.label),
                checked_at: None,
                source_version: None,
                claim: None,
                state: LessonState::Accepted,
                confirmed: false,
                written_by: WrittenBy::Job,
                at: now,
            };
            let actor = crate::kernel::Actor { person: None, at: now };
            match self.store.supersede_lesson(old, &new, "the day's runs showed it wrong", actor).await {
                Ok(_) => report.superseded += 1,
                Err(e) => tracing::warn!(error = %e, lesson = old.id, "a lesson was not superseded"),
            }
        }
        for line in reply.core_lines {
            let runs = cited(&line.runs);
            // A core line rests only on clean work: internal or below, no outside text, and never
            // on what a person asked their private agents.
            if runs.is_empty() || batch.kind == WorkKind::Private || !runs.iter().all(|r| clean(r)) {
                continue;
            }
            let scope = match line.core.as_str() {
                "team" => person.main_team.map(CoreScope::Team),
                _ => runs
                    .iter()
                    .find_map(|r| directory.agents.iter().find(|a| a.id == r.agent).and_then(|a| a.role))
                    .and_then(|role| directory.role(role))
                    .map(|r| CoreScope::Company(r.slug.clone())),
            };
            let Some(scope) = scope else { continue };
            let ids: Vec<String> = runs.iter().map(|r| r.id.0.to_string()).collect();
            let rests_on = format!("Runs {} of {}.", ids.join(", "), person.name);
            match self.cores.suggest_core_line(&scope, &line.line, &line.why, &rests_on, "nightly job").await {
                Ok(_) => report.suggested += 1,
                Err(e) => tracing::warn!(error = %e, "a core line from the nightly job was not suggested"),
            }
        }
        proposed
    }
}

/// A batch whose runs stay unread, to be read again next night; what it had already cost.
struct ReadFailed {
    cost: u64,
}
