//! What a person's memory shows: "What I'm working on", the cards selected for a question, the
//! agents' access, pins, and the counts an admin may see.

use super::*;

/// One line of "What I'm working on".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CardView {
    pub card: i64,
    pub kind: String,
    pub record_id: String,
    pub source: String,
    /// "lead · Acme ATS · read 2 h ago"
    pub line: String,
    pub fields: Vec<CardField>,
    /// Fields the last read from the source did not return: shown with their stored value, as
    /// unknown.
    pub not_returned: Vec<String>,
    pub pinned: bool,
    pub open_work: bool,
    pub class: String,
    /// The fields as people read them: each under its label, its value in the company's locale.
    /// `fields` keeps them as stored, for what compares or acts.
    pub shown: Vec<ShownField>,
}

/// One field of a card as people read it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShownField {
    pub name: String,
    /// "Contact", as the confirmed shape names it, or drafted from the name.
    pub label: String,
    /// "₹18,50,000": the stored value written in the company's locale.
    pub value: String,
    pub free_text: bool,
    /// The last read did not return it: the value is from an earlier read and now unknown.
    pub unknown: bool,
}

/// How cards read to people: the company's locale, and the fields each kept tool's confirmed
/// shape names. Read once for a page: one row and a shape list per connector shown.
pub(super) struct Presentation {
    locale: crate::locale::Locale,
    fields: std::collections::HashMap<(i64, String), Vec<crate::cards::source::ShapeField>>,
}

impl Presentation {
    fn show(&self, card: &Card) -> Vec<ShownField> {
        let confirmed = self.fields.get(&(card.connector, card.tool.clone()));
        card.fields
            .iter()
            .map(|f| {
                let shaped = confirmed.and_then(|fs| fs.iter().find(|s| s.name == f.name));
                let field =
                    shaped.cloned().unwrap_or_else(|| crate::cards::source::ShapeField::new(&f.name, f.free_text));
                ShownField {
                    name: f.name.clone(),
                    label: field.label(),
                    value: if f.free_text { f.value.clone() } else { field.format().show(&f.value, &self.locale) },
                    free_text: f.free_text,
                    unknown: card.not_returned.contains(&f.name),
                }
            })
            .collect()
    }
}

impl Reads {
    /// The locale and the confirmed shapes of `connectors`, for showing their cards.
    pub(super) async fn presentation(
        &self,
        connectors: impl Iterator<Item = i64>,
    ) -> Result<Presentation, MemoryError> {
        let locale = self.store.company().await?.map(|c| c.locale).unwrap_or_default().locale();
        let mut fields = std::collections::HashMap::new();
        let mut seen = std::collections::BTreeSet::new();
        for connector in connectors {
            if !seen.insert(connector) {
                continue;
            }
            for shape in self.store.shapes(connector).await? {
                fields.insert((connector, shape.tool), shape.fields);
            }
        }
        Ok(Presentation { locale, fields })
    }
}

/// What deciding a person's cards reads besides the cards: who reads them, and the connectors,
/// shared rather than copied per card, as a run decides a hundred cards or more of one connector.
pub(super) struct Deciding {
    reader: Reader,
    connectors: Vec<Arc<Connector>>,
}

impl Reads {
    /// A company agent as the access decision sees it: the toolsets it holds and its clearance.
    pub(super) async fn running_agent(
        &self,
        agent: crate::org::AgentId,
    ) -> Result<crate::cards::access::RunningAgent, MemoryError> {
        let (cleared_for, holds_toolsets) = self
            .store
            .agent_access(agent)
            .await?
            .ok_or_else(|| MemoryError::NotFound("There is no such agent".into()))?;
        Ok(crate::cards::access::RunningAgent { holds_toolsets, cleared_for })
    }

    /// What deciding the person's cards needs, the reader and the connectors read at once.
    pub(super) async fn deciding(&self, person: &Person) -> Result<Deciding, MemoryError> {
        let (reader, connectors) = futures_util::try_join!(self.reader(person), async {
            Ok(self.store.connectors().await?.into_iter().map(Arc::new).collect())
        })?;
        Ok(Deciding { reader, connectors })
    }

    /// The person's kept cards and what deciding them needs, read at once.
    pub(super) async fn kept_and_deciding(
        &self,
        person: &Person,
    ) -> Result<(Vec<(Card, CardUse)>, Deciding), MemoryError> {
        futures_util::try_join!(async { Ok(self.store.kept(person.id).await?) }, self.deciding(person))
    }

    /// Decides each of the person's kept cards now, for them and (in a run) the agent, without
    /// carrying anything out.
    pub(super) async fn decided(
        &self,
        person: &Person,
        agent: Option<&crate::cards::access::RunningAgent>,
    ) -> Result<Vec<(Card, CardUse, Arc<Connector>, Decision)>, MemoryError> {
        let (kept, deciding) = self.kept_and_deciding(person).await?;
        Ok(Self::decided_of(&deciding, agent, kept))
    }

    /// Decides the given kept cards of the person now, as `decided` does.
    pub(super) fn decided_of(
        deciding: &Deciding,
        agent: Option<&crate::cards::access::RunningAgent>,
        kept: Vec<(Card, CardUse)>,
    ) -> Vec<(Card, CardUse, Arc<Connector>, Decision)> {
        let mut out = Vec::new();
        for (card, u) in kept {
            let Some(c) = deciding.connectors.iter().find(|c| c.id == card.connector) else { continue };
            let decision = decide(&card.origin(), &c.toolset_now(&card.tool), &deciding.reader, agent);
            out.push((card, u, Arc::clone(c), decision));
        }
        out
    }

    /// As `decided`, and carries out what must go: a card no tool may keep any more is removed;
    /// a use whose person is no longer admitted goes. Returns what may be shown, with its
    /// connector and class.
    pub(super) async fn settle(
        &self,
        person: &Person,
        agent: Option<&crate::cards::access::RunningAgent>,
    ) -> Result<Vec<(Card, CardUse, Arc<Connector>, crate::cards::access::DataLabel)>, MemoryError> {
        let (kept, deciding) = self.kept_and_deciding(person).await?;
        self.settle_of(person, agent, &deciding, kept).await
    }

    /// As `settle`, for the given kept cards of the person only.
    pub(super) async fn settle_of(
        &self,
        person: &Person,
        agent: Option<&crate::cards::access::RunningAgent>,
        deciding: &Deciding,
        kept: Vec<(Card, CardUse)>,
    ) -> Result<Vec<(Card, CardUse, Arc<Connector>, crate::cards::access::DataLabel)>, MemoryError> {
        let mut shown = Vec::new();
        for (card, u, c, decision) in Self::decided_of(deciding, agent, kept) {
            match decision {
                Decision::Remove => {
                    self.store.remove_card(card.id, &removal_reason(&c, &card), self.actor(None)).await?
                }
                Decision::DropUse => {
                    self.store
                        .remove_use(person.id, card.id, &format!("no longer admitted to {}", c.name), self.actor(None))
                        .await?
                }
                Decision::Hide(_) => {}
                Decision::Show(class) => shown.push((card, u, c, class)),
            }
        }
        Ok(shown)
    }
}

impl MyCards {
    /// "What I'm working on": the cards kept for the person's own work, strongest first, each
    /// decided now. Cards and uses that must go are removed here too.
    pub async fn my_cards(&self, person: &Person) -> Result<Vec<CardView>, MemoryError> {
        let shown = self.reads.settle(person, None).await?;
        self.views(shown).await
    }

    /// What `my_cards` would show, changing nothing: a card or use that must go is left out here
    /// and left in place for the next read that may write. For the read-only command line.
    pub async fn my_cards_read_only(&self, person: &Person) -> Result<Vec<CardView>, MemoryError> {
        let shown = self
            .reads
            .decided(person, None)
            .await?
            .into_iter()
            .filter_map(|(card, u, c, d)| match d {
                Decision::Show(class) => Some((card, u, c, class)),
                _ => None,
            })
            .collect();
        self.views(shown).await
    }

    async fn views(
        &self,
        shown: Vec<(Card, CardUse, Arc<Connector>, crate::cards::access::DataLabel)>,
    ) -> Result<Vec<CardView>, MemoryError> {
        let now = self.reads.now();
        let presentation = self.reads.presentation(shown.iter().map(|(card, ..)| card.connector)).await?;
        let mut out: Vec<(f64, CardView)> = shown
            .into_iter()
            .map(|(card, u, c, class)| {
                let score = rank_score(u.summary.activation(now), u.pinned, card.open_work);
                let shown = presentation.show(&card);
                let view = CardView {
                    card: card.id,
                    line: format!("{} · {} · read {}", card.kind, c.name, age_words(card.read_at, now)),
                    kind: card.kind,
                    record_id: card.record_id,
                    source: c.name.clone(),
                    fields: card.fields,
                    not_returned: card.not_returned,
                    pinned: u.pinned,
                    open_work: card.open_work,
                    class: class.as_str().to_string(),
                    shown,
                };
                (score, view)
            })
            .collect();
        out.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.card.cmp(&b.1.card)));
        Ok(out.into_iter().map(|(_, v)| v).collect())
    }

    /// The cards for a question in a run acting for `person`: each decided now for the person and
    /// the agent, ranked by the person's use, then selected (at most 25, made up to 10 with pinned
    /// and open work; free text only when the question names it).
    pub async fn select_for(
        &self,
        person: &Person,
        question: &str,
        agent: Option<&crate::cards::access::RunningAgent>,
    ) -> Result<crate::cards::select::Selection, MemoryError> {
        let now = self.reads.now();
        let shown = self.reads.settle(person, agent).await?;
        let candidates: Vec<_> = shown
            .iter()
            .map(|(card, u, _, _)| crate::cards::select::Candidate {
                card_id: card.id,
                score: rank_score(u.summary.activation(now), u.pinned, card.open_work),
                record_id: card.record_id.clone(),
                fields: card.fields.clone(),
                pinned: u.pinned,
                open_work: card.open_work,
            })
            .collect();
        let mut selection = crate::cards::select::select_cards(question, &candidates);
        for s in &mut selection.cards {
            if let Some((card, _, c, _)) = shown.iter().find(|(card, ..)| card.id == s.card_id) {
                s.freshness = c.freshness(card.read_at, now, &s.fields);
            }
        }
        Ok(selection)
    }

    /// Per company agent, in words: "Holds Acme ATS · cleared for internal data".
    pub async fn access_lines(&self) -> Result<Vec<(i64, String)>, MemoryError> {
        let dir = self.store.outline().await?;
        let connectors = self.store.connectors().await?;
        let mut out = Vec::new();
        for a in &dir.agents {
            let r = self.reads.running_agent(a.id).await?;
            let names: Vec<String> =
                connectors.iter().filter(|c| r.holds_toolsets.contains(&c.id)).map(|c| c.name.clone()).collect();
            let holds = if names.is_empty() { "no toolsets".to_string() } else { names.join(", ") };
            out.push((a.id.0, format!("Holds {holds} · cleared for {} data", r.cleared_for.as_str())));
        }
        Ok(out)
    }

    /// What an admin sees on a person's panel: how much is kept, never what it says; `lessons`
    /// is how many of their lessons are in use, as the lessons' area counts them.
    pub async fn counts_line(&self, admin: &Person, person: PersonId, lessons: u32) -> Result<String, MemoryError> {
        if !admin.is_admin {
            return Err(MemoryError::NotAllowed("Only an admin sees these counts".to_string()));
        }
        // Counted as of now: uses the person lost access to are gone before they are counted.
        if let Some(p) = self.store.person(person).await? {
            self.reads.settle(&p, None).await?;
        }
        let (kept, pinned) = self.store.counts(person).await?;
        Ok(format!(
            "Memory: {kept} record{} kept ({pinned} pinned), {lessons} lesson{} in use. What they say is theirs alone.",
            if kept == 1 { "" } else { "s" },
            if lessons == 1 { "" } else { "s" }
        ))
    }

    /// For the CLI: "Alice Chen has 12 cards kept (1 pinned) and 1 list. What they say is theirs
    /// alone." It changes nothing: cards and uses that must go are not counted, and are left in
    /// place for the next read that may write.
    pub async fn counts_sentence(&self, admin: &Person, person: &Person) -> Result<String, MemoryError> {
        if !admin.is_admin && admin.id != person.id {
            return Err(MemoryError::NotAllowed("Only an admin sees another person's counts".to_string()));
        }
        let staying: Vec<_> = self
            .reads
            .decided(person, None)
            .await?
            .into_iter()
            .filter(|(.., d)| !matches!(d, Decision::Remove | Decision::DropUse))
            .collect();
        let (kept, pinned) = (staying.len(), staying.iter().filter(|(_, u, ..)| u.pinned).count());
        // Lists as a run would load them: of toolsets that still admit the person.
        let mut lists = 0;
        for s in self.store.snapshots_of(person.id).await? {
            let c = self.reads.connector(s.connector).await?;
            if self.reads.key_for(&c, &s.tool, person).await.is_ok() {
                lists += 1;
            }
        }
        Ok(format!(
            "{} has {kept} card{} kept ({pinned} pinned) and {lists} list{}. What they say is theirs alone.",
            person.name,
            if kept == 1 { "" } else { "s" },
            if lists == 1 { "" } else { "s" }
        ))
    }
}

impl CardReads {
    pub async fn pin(&self, person: &Person, card: i64, pinned: bool) -> Result<(), MemoryError> {
        let (_, mut u) = self.reads.own_use(person, card).await?;
        u.pinned = pinned;
        self.store.save_use(&u).await.map_err(Into::into)
    }
}

#[cfg(test)]
#[path = "views_tests.rs"]
mod tests;
