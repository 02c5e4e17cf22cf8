//! Loading what a run's block is made of: which cores, the who's-who slice and the cards, by the
//! run's kind and whom it acts for. `block::assemble` then puts them together.

use super::*;
use crate::cards::access::RunningAgent;
use crate::cores::CoreScope;
use crate::lessons::select::lessons_for;
use crate::org::{Agent, TeamId};
use crate::runs::block::{
    assemble, Block, BlockCard, BlockInput, BlockLesson, BlockSnapshot, LoadedCore, SLICE_TOKENS,
};
use crate::runs::whoswho::{build_slice, SliceInput};

/// How many teammates the slice reads at most; its budget cuts further.
const TEAMMATES_READ: u32 = 60;

/// What a block carried beyond the block itself, for the run.
pub(crate) struct Loaded {
    pub block: Block,
    /// A free-text field of a card loads.
    pub review_mode: bool,
    /// The cards the block carried, for provenance: what the run remembers.
    pub cards: Vec<BlockCard>,
    /// The lessons (for now the person's notes) the block carried, for provenance.
    pub lessons: Vec<BlockLesson>,
    /// The list snapshots the block carried: the check runs their queries once more.
    pub snapshots: Vec<BlockSnapshot>,
}

/// A lesson as the block quotes it: its id, where it came from and when it became valid.
fn block_lesson(l: &crate::lessons::Lesson, person: &Person) -> BlockLesson {
    use crate::lessons::{LessonScope, WrittenBy};
    let source = match (l.scope, l.written_by) {
        (LessonScope::Personal, WrittenBy::Person) if l.person == person.id => "your own words",
        (LessonScope::Agent(_), _) => "your private agents' runs",
        (LessonScope::Personal, _) => "your runs",
        (LessonScope::Team(_), _) => "your team's lessons",
        (LessonScope::Company, _) => "the company's lessons",
        (LessonScope::Partner, _) => "partner knowledge",
    };
    BlockLesson {
        id: l.ref_id(),
        source: source.into(),
        kept_at: l.valid_from,
        text: l.text.clone(),
        label: l.label,
        claim: l.claim.as_ref().map(|c| c.value.clone()),
    }
}

fn looks_like_email(s: &str) -> bool {
    let s = s.trim();
    !s.contains(' ') && s.split_once('@').is_some_and(|(a, b)| !a.is_empty() && b.contains('.'))
}

impl Runs {
    /// The block a run of `kind` by `agent` acting for `person` is given for `question`, read from
    /// the store now. Nothing is recorded.
    pub async fn block_for(
        &self,
        kind: RunKind,
        agent: &Agent,
        person: Option<&Person>,
        question: &str,
    ) -> Result<Block, RunError> {
        Ok(self.load(kind, agent, person, question).await?.block)
    }

    pub(super) async fn load(
        &self,
        kind: RunKind,
        agent: &Agent,
        person: Option<&Person>,
        question: &str,
    ) -> Result<Loaded, RunError> {
        let now = self.now();
        let running = self.memory.running_agent(agent.id).await.map_err(|e| RunError::Store(e.to_string()))?;
        let empty = BlockInput {
            cores: vec![],
            slice: None,
            cards: vec![],
            lessons: vec![],
            snapshots: vec![],
            cleared_for: running.cleared_for,
            now,
        };
        if kind == RunKind::Eval {
            // An eval's result never depends on who ran it.
            return Ok(Loaded {
                block: assemble(empty),
                review_mode: false,
                cards: vec![],
                lessons: vec![],
                snapshots: vec![],
            });
        }
        let person = person.filter(|_| kind != RunKind::Schedule);
        let cores = self.cores_for(agent, person).await?;
        // A list asked again loads its snapshot, and the cards of the records it returned.
        let snapshots = match (kind, person) {
            (RunKind::Ask, Some(p)) => self
                .memory
                .snapshots_for_run(p, question, &running)
                .await
                .map_err(|e| RunError::Store(e.to_string()))?,
            _ => vec![],
        };
        let (cards, review_mode) = match (kind, person) {
            (RunKind::Ask, Some(p)) if snapshots.is_empty() => self.cards_for(p, question, &running).await?,
            (RunKind::Ask, Some(p)) => {
                let listed: Vec<&str> = snapshots.iter().flat_map(|s| s.records.iter().map(String::as_str)).collect();
                self.cards_for(p, &format!("{question} {}", listed.join(" ")), &running).await?
            }
            _ => (vec![], false),
        };
        // Lessons load into a person's own asks: theirs, their team's and the company's.
        let lessons = match (kind, person) {
            (RunKind::Ask, Some(p)) => {
                let teams: Vec<TeamId> = p.main_team.into_iter().collect();
                // The agent's memory_scopes limit them; company knowledge always loads.
                let scopes = self.store.memory_scopes(agent.id).await?;
                let private_owner = agent.private.then_some(agent.owner);
                let readable: Vec<_> = self
                    .store
                    .lessons_for_run(p.id, &teams)
                    .await?
                    .into_iter()
                    .filter(|l| l.in_use(now) && crate::lessons::scopes::within(&scopes, l, private_owner))
                    .collect();
                lessons_for(question, &readable).into_iter().map(|l| block_lesson(l, p)).collect()
            }
            _ => vec![],
        };
        let slice = match person {
            Some(p) => Some(self.slice_for(p, &cards).await?),
            None => None,
        };
        let block = assemble(BlockInput {
            cores,
            slice,
            cards: cards.clone(),
            lessons: lessons.clone(),
            snapshots: snapshots.clone(),
            cleared_for: running.cleared_for,
            now,
        });
        let review_mode = review_mode && block.refs.iter().any(|r| matches!(r, MemoryRef::Card(_)));
        let carried: Vec<BlockCard> =
            cards.into_iter().filter(|c| block.refs.contains(&MemoryRef::Card(format!("card:{}", c.card)))).collect();
        let lessons = lessons.into_iter().filter(|l| block.refs.contains(&MemoryRef::Lesson(l.id.clone()))).collect();
        let snapshots =
            snapshots.into_iter().filter(|s| block.refs.contains(&MemoryRef::Snapshot(s.id.to_string()))).collect();
        Ok(Loaded { review_mode: review_mode || block.review_mode, block, cards: carried, lessons, snapshots })
    }

    async fn cards_for(
        &self,
        person: &Person,
        question: &str,
        agent: &RunningAgent,
    ) -> Result<(Vec<BlockCard>, bool), RunError> {
        self.memory.cards_for_run(person, question, agent).await.map_err(|e| RunError::Store(e.to_string()))
    }

    /// The company core of the agent's role; the team core of the person's main team when that
    /// team's role is the agent's (for a team copy, the copy's own team's); nothing else.
    async fn cores_for(&self, agent: &Agent, person: Option<&Person>) -> Result<Vec<LoadedCore>, RunError> {
        let mut out = Vec::new();
        let Some(role_id) = agent.role else { return Ok(out) };
        let Some(role) = self.store.role_by_id(role_id).await? else { return Ok(out) };
        if let Some(v) = self.store.current_core(&CoreScope::Company(role.slug.clone())).await? {
            out.push(LoadedCore { scope: v.scope, name: role.name.clone(), version: v.version, text: v.text });
        }
        let Some(person) = person else { return Ok(out) };
        let team: Option<TeamId> = match agent.team_copy {
            Some(t) => Some(t),
            None => person.main_team,
        };
        let Some(team) = team else { return Ok(out) };
        let Some(team) = self.store.team(team).await? else { return Ok(out) };
        if agent.team_copy.is_none() && team.role != Some(role_id) {
            return Ok(out);
        }
        if let Some(v) = self.store.current_core(&CoreScope::Team(team.id)).await? {
            out.push(LoadedCore { scope: v.scope, name: team.name.clone(), version: v.version, text: v.text });
        }
        Ok(out)
    }

    /// Who's who around the person: the directory, the owners named on the cards this run loads,
    /// and the who's-who list entries that name them exactly.
    async fn slice_for(&self, person: &Person, cards: &[BlockCard]) -> Result<crate::runs::whoswho::Slice, RunError> {
        let around = self.store.around(person.id, TEAMMATES_READ).await?;
        let mut emails: Vec<String> = cards
            .iter()
            .flat_map(|c| c.fields.iter())
            .filter(|f| !f.free_text && looks_like_email(&f.value))
            .map(|f| f.value.trim().to_lowercase())
            .filter(|e| *e != person.email.to_lowercase())
            .collect();
        emails.sort();
        emails.dedup();
        let owners = if emails.is_empty() { vec![] } else { self.store.people_by_emails(&emails).await? };
        let entries = match self.lists.entries_for(person, &[]).await {
            Ok(e) => e,
            Err(e) => {
                tracing::warn!(person = %person.id, error = %e, "the who's-who lists were not read for a run");
                vec![]
            }
        };
        self.refetch_unknown(&emails, &owners, &entries);
        let input = SliceInput { person: person.clone(), around, owners, entries, now: self.now() };
        Ok(build_slice(&input, SLICE_TOKENS))
    }

    /// An owner email on a loaded card that neither the directory nor a kept list entry names:
    /// the who's-who lists are fetched again in the background (claimed once per id and hour).
    fn refetch_unknown(&self, emails: &[String], owners: &[Person], entries: &[crate::runs::whoswho::ListEntry]) {
        let Some(spawn) = &self.spawn else { return };
        let known = |e: &String| {
            owners.iter().any(|p| p.email.eq_ignore_ascii_case(e))
                || entries.iter().any(|x| x.names.iter().any(|n| n.eq_ignore_ascii_case(e)))
        };
        for email in emails.iter().filter(|e| !known(e)).take(3) {
            let (lists, email) = (self.lists.clone(), email.clone());
            spawn(Box::pin(async move {
                if let Err(e) = lists.refetch_for_unknown(&email).await {
                    tracing::warn!(error = %e, "the who's-who lists were not fetched again");
                }
            }));
        }
    }
}
