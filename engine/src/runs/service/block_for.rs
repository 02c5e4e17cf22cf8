//! Loading what a run's block is made of: which cores, the who's-who slice and the cards, by the
//! run's kind and whom it acts for. `block::assemble` then puts them together.

use super::*;
use crate::cards::access::RunningAgent;
use crate::lessons::select::lessons_for;
use crate::org::{Agent, TeamId};
use crate::runs::block::{
    assemble, Block, BlockCard, BlockInput, BlockLesson, BlockSnapshot, LoadedCore, SLICE_TOKENS,
};
use crate::runs::whoswho::{build_slice, Around, ListEntry, SliceInput};

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
    /// Who's who's lines read from the organisation's directory as the block was made: current.
    pub directory: Vec<String>,
    /// Who's who's lines kept from a connector's lists: remembered, as cards are.
    pub listed: Vec<ListedLine>,
}

/// A who's-who line kept from a connector's list.
pub(crate) struct ListedLine {
    pub id: String,
    /// The connector's name.
    pub source: String,
    pub text: String,
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

impl Blocks {
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

    /// Block assembly, in a span of its own: the run's kind, then what the block carries, as
    /// counts.
    #[tracing::instrument(
        name = "memory.block",
        skip_all,
        fields(
            otel.name = "memory.block",
            engram.run.kind = kind.as_str(),
            engram.memory.cores = tracing::field::Empty,
            engram.memory.cards = tracing::field::Empty,
            engram.memory.lessons = tracing::field::Empty,
            engram.memory.snapshots = tracing::field::Empty,
            engram.memory.whos_who_lines = tracing::field::Empty,
            engram.memory.block_tokens = tracing::field::Empty,
            engram.memory.review_mode = tracing::field::Empty,
        )
    )]
    pub(super) async fn load(
        &self,
        kind: RunKind,
        agent: &Agent,
        person: Option<&Person>,
        question: &str,
    ) -> Result<Loaded, RunError> {
        let now = self.now();
        if kind == RunKind::Eval {
            // An eval's result never depends on who ran it.
            let running = self.running_agent(agent).await?;
            return Ok(Loaded {
                block: assemble(BlockInput {
                    cores: vec![],
                    slice: None,
                    cards: vec![],
                    lessons: vec![],
                    snapshots: vec![],
                    cleared_for: running.cleared_for,
                    now,
                }),
                review_mode: false,
                cards: vec![],
                lessons: vec![],
                snapshots: vec![],
                directory: vec![],
                listed: vec![],
            });
        }
        let person = person.filter(|_| kind != RunKind::Schedule);
        // Only a person's own asks load their cards, lists and lessons. An external run acts for
        // its person as an unwatched ask does, except that its block leaves the lessons that are
        // theirs alone (their own, their private agents'): only a signed-in session reads those.
        let asker = person.filter(|_| matches!(kind, RunKind::Ask | RunKind::External));
        let shared_lessons_only = kind == RunKind::External;
        // The parts of a block that do not wait on each other are read at once: a block then
        // takes as long as its slowest part, not as all of them together.
        let ((running, snapshots, cards, review_mode), cores, lessons, around) = futures_util::try_join!(
            self.memory_for(agent, asker, question),
            self.cores_for(agent, person),
            async {
                match asker {
                    Some(p) => self.lessons_for(agent, p, question, now, shared_lessons_only).await,
                    None => Ok(vec![]),
                }
            },
            async {
                match person {
                    Some(p) => Ok(Some(self.around_for(p).await?)),
                    None => Ok(None),
                }
            },
        )?;
        // The owners named on the cards join who's who, so it waits for them.
        let slice = match (person, around) {
            (Some(p), Some((around, entries))) => Some(self.slice_for(p, &cards, around, entries).await?),
            _ => None,
        };
        let (mut directory, mut listed) = (Vec::new(), Vec::new());
        for line in slice.iter().flat_map(|s| &s.lines) {
            match line.read_at {
                None => directory.push(line.text.clone()),
                Some(_) => listed.push(ListedLine {
                    id: line.id.clone(),
                    source: line.source.clone(),
                    text: line.text.clone(),
                }),
            }
        }
        let cores_loaded = cores.len();
        let slice_lines = slice.as_ref().map_or(0, |s| s.lines.len());
        let block = assemble(BlockInput {
            cores,
            slice,
            cards: cards.clone(),
            lessons: lessons.clone(),
            snapshots: snapshots.clone(),
            cleared_for: running.cleared_for,
            now,
        });
        let span = tracing::Span::current();
        span.record("engram.memory.cores", cores_loaded);
        span.record("engram.memory.whos_who_lines", slice_lines);
        let review_mode = review_mode && block.refs.iter().any(|r| matches!(r, MemoryRef::Card(_)));
        let carried: Vec<BlockCard> =
            cards.into_iter().filter(|c| block.refs.contains(&MemoryRef::Card(format!("card:{}", c.card)))).collect();
        let lessons: Vec<BlockLesson> =
            lessons.into_iter().filter(|l| block.refs.contains(&MemoryRef::Lesson(l.id.clone()))).collect();
        let snapshots: Vec<BlockSnapshot> =
            snapshots.into_iter().filter(|s| block.refs.contains(&MemoryRef::Snapshot(s.id.to_string()))).collect();
        span.record("engram.memory.cards", carried.len());
        span.record("engram.memory.lessons", lessons.len());
        span.record("engram.memory.snapshots", snapshots.len());
        span.record("engram.memory.block_tokens", crate::runs::cost::block_tokens(&block));
        span.record("engram.memory.review_mode", review_mode || block.review_mode);
        Ok(Loaded {
            review_mode: review_mode || block.review_mode,
            block,
            cards: carried,
            lessons,
            snapshots,
            directory,
            listed,
        })
    }

    async fn running_agent(&self, agent: &Agent) -> Result<RunningAgent, RunError> {
        self.cards.running_agent(agent.id).await.map_err(RunError::from)
    }

    /// The agent's access, and for a person's own ask the list snapshots and cards it loads: a
    /// list asked again loads its snapshot and the cards of the records it returned.
    #[tracing::instrument(
        name = "memory.card_read",
        skip_all,
        fields(
            otel.name = "memory.card_read",
            engram.cards.read = tracing::field::Empty,
            engram.snapshots.read = tracing::field::Empty,
        )
    )]
    async fn memory_for(
        &self,
        agent: &Agent,
        asker: Option<&Person>,
        question: &str,
    ) -> Result<(RunningAgent, Vec<BlockSnapshot>, Vec<BlockCard>, bool), RunError> {
        let Some(p) = asker else { return Ok((self.running_agent(agent).await?, vec![], vec![], false)) };
        let memory = RunError::from;
        // The cards the question names are read with the agent and the snapshots, as they wait
        // on neither; a list asked again names more records, and its cards are read again.
        let (running, kept, read) = futures_util::try_join!(
            self.running_agent(agent),
            async { self.cards.kept_snapshots(p).await.map_err(memory) },
            async { self.cards.read_cards_for_run(p, question).await.map_err(memory) },
        )?;
        let snapshots = self.cards.snapshots_for_run(p, question, &running, &kept).await.map_err(memory)?;
        let (cards, review_mode) = if snapshots.is_empty() {
            self.cards.cards_from_read(p, question, &running, read).await.map_err(memory)?
        } else {
            let listed: Vec<&str> = snapshots.iter().flat_map(|s| s.records.iter().map(String::as_str)).collect();
            let question = format!("{question} {}", listed.join(" "));
            self.cards.cards_for_run(p, &question, &running).await.map_err(memory)?
        };
        let span = tracing::Span::current();
        span.record("engram.cards.read", cards.len());
        span.record("engram.snapshots.read", snapshots.len());
        Ok((running, snapshots, cards, review_mode))
    }

    /// The lessons a person's own ask loads: theirs, their team's and the company's, within the
    /// agent's memory scopes (company knowledge always loads).
    #[tracing::instrument(
        name = "memory.lesson_search",
        skip_all,
        fields(
            otel.name = "memory.lesson_search",
            engram.lessons.readable = tracing::field::Empty,
            engram.lessons.loaded = tracing::field::Empty,
            engram.lessons.question_embedded = tracing::field::Empty,
        )
    )]
    async fn lessons_for(
        &self,
        agent: &Agent,
        p: &Person,
        question: &str,
        now: chrono::DateTime<chrono::Utc>,
        shared_only: bool,
    ) -> Result<Vec<BlockLesson>, RunError> {
        let teams: Vec<TeamId> = p.main_team.into_iter().collect();
        // The question's one embedding call goes while the lessons are read: a run waits for the
        // slower of the two, never for both, and not for the call at all when no lesson is
        // readable. A failure is logged and the words alone rank.
        let asked = async {
            match &self.vectors {
                Some(v) => v.question(question).await,
                None => None,
            }
        };
        let read = futures_util::future::try_join(
            self.store.memory_scopes(agent.id),
            self.store.lessons_for_run(p.id, &teams),
        );
        let (read, asked) = match futures_util::future::select(Box::pin(read), Box::pin(asked)).await {
            futures_util::future::Either::Left((read, asked)) => (read, Err(asked)),
            futures_util::future::Either::Right((asked, read)) => (read.await, Ok(asked)),
        };
        let (scopes, lessons) = read?;
        let private_owner = agent.private.then_some(agent.owner);
        let readable: Vec<_> = lessons
            .into_iter()
            .filter(|l| l.in_use(now) && crate::lessons::scopes::within(&scopes, l, private_owner))
            .filter(|l| {
                !shared_only
                    || !matches!(l.scope, crate::lessons::LessonScope::Personal | crate::lessons::LessonScope::Agent(_))
            })
            .collect();
        let span = tracing::Span::current();
        span.record("engram.lessons.readable", readable.len());
        if readable.is_empty() {
            // Nothing to rank: the run does not wait for the question's vector.
            return Ok(vec![]);
        }
        let asked = match asked {
            Ok(asked) => asked,
            Err(pending) => pending.await,
        };
        let loaded = match &self.vectors {
            Some(v) => v.ranked(question, &readable, asked.as_deref()).await,
            None => lessons_for(question, &readable),
        };
        span.record("engram.lessons.loaded", loaded.len());
        span.record("engram.lessons.question_embedded", asked.is_some());
        Ok(loaded.into_iter().map(|l| block_lesson(l, p)).collect())
    }

    /// The company core of the agent's role; the team core of the person's main team when that
    /// team's role is the agent's (for a team copy, the copy's own team's); nothing else.
    async fn cores_for(&self, agent: &Agent, person: Option<&Person>) -> Result<Vec<LoadedCore>, RunError> {
        let Some(role_id) = agent.role else { return Ok(vec![]) };
        let team_id: Option<TeamId> = person.and_then(|p| agent.team_copy.or(p.main_team));
        let Some(read) = self.store.cores_for_run(role_id, team_id).await? else { return Ok(vec![]) };
        let mut out = Vec::new();
        if let Some(v) = read.company {
            out.push(LoadedCore { scope: v.scope, name: read.role.name.clone(), version: v.version, text: v.text });
        }
        let team = read.team.filter(|(t, _)| agent.team_copy.is_some() || t.role == Some(role_id));
        if let Some((team, Some(v))) = team {
            out.push(LoadedCore { scope: v.scope, name: team.name, version: v.version, text: v.text });
        }
        Ok(out)
    }

    /// The directory around the person and the who's-who list entries naming them, read at once.
    /// Lists that cannot be read leave the slice to the directory, and are logged.
    async fn around_for(&self, person: &Person) -> Result<(Around, Vec<ListEntry>), RunError> {
        let (around, entries) = futures_util::join!(self.store.around(person.id, TEAMMATES_READ), async {
            self.lists.entries_for(person, &[]).await.unwrap_or_else(|e| {
                tracing::warn!(person = %person.id, error = %e, "the who's-who lists were not read for a run");
                vec![]
            })
        });
        Ok((around?, entries))
    }

    /// Who's who around the person: the directory, the owners named on the cards this run loads,
    /// and the who's-who list entries that name them exactly.
    async fn slice_for(
        &self,
        person: &Person,
        cards: &[BlockCard],
        around: Around,
        entries: Vec<ListEntry>,
    ) -> Result<crate::runs::whoswho::Slice, RunError> {
        let mut emails: Vec<String> = cards
            .iter()
            .flat_map(|c| c.fields.iter())
            .filter(|f| !f.free_text && looks_like_email(&f.value))
            .map(|f| f.value.trim().to_lowercase())
            .filter(|e| *e != person.email.to_lowercase())
            .collect();
        emails.sort();
        emails.dedup();
        // An owner already read around the person is not read again: a card's owner is often a
        // teammate, and then the run does not wait for a second read of people.
        let known: Vec<&Person> = around.lead.iter().chain(&around.manager).chain(&around.teammates).collect();
        let (mut owners, mut unknown) = (Vec::new(), Vec::new());
        for e in &emails {
            match known.iter().find(|p| p.email.eq_ignore_ascii_case(e)) {
                Some(p) => owners.push((*p).clone()),
                None => unknown.push(e.clone()),
            }
        }
        if !unknown.is_empty() {
            owners.extend(self.store.people_by_emails(&unknown).await?);
        }
        // By name, as the store lists people.
        owners.sort_by(|a, b| a.name.cmp(&b.name));
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
