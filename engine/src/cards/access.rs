//! Who may see a card: one decision, made each time a card is read and never when it was written.
//! A person gets back only what they could have fetched themselves from the source right now.

use crate::org::PersonId;
use serde::{Deserialize, Serialize};

pub use crate::kernel::DataLabel;

/// The key a read is made with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeyKind {
    /// The company key alone: the source answers with everything the company may see.
    Company,
    /// The company key with the acting-for header: the source answers as that person.
    ActingFor,
    /// The person's own key.
    OwnKey,
}

impl KeyKind {
    /// Whether a read with this key speaks for one person, so what it returns is theirs alone.
    pub fn is_personal(&self) -> bool {
        !matches!(self, KeyKind::Company)
    }
}

crate::string_enum!(KeyKind {
    Company => "company",
    ActingFor => "acting_for",
    OwnKey => "own_key",
});

/// A connector's toolset as it stands now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolsetNow {
    pub id: i64,
    pub label: DataLabel,
    /// The role slugs it admits; empty admits everyone in the company.
    pub admits_roles: Vec<String>,
    /// How the tool that read the card reads now; `None` when that tool is no longer ticked.
    pub tool_reads_with: Option<KeyKind>,
    /// The key kinds any ticked tool of the connector reads with now.
    pub key_kinds_in_use: Vec<KeyKind>,
    /// The connector's Keep cards switch.
    pub keep_cards: bool,
}

/// What a card recorded about how it was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CardOrigin {
    pub toolset: i64,
    pub read_with: KeyKind,
    /// For a personal read: the person it was read as.
    pub read_as: Option<PersonId>,
    pub label_when_read: DataLabel,
}

/// The person the card would reach, and the work it is for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reader {
    pub person: PersonId,
    /// The person's department role, if any.
    pub role: Option<String>,
    /// Whose work this is: the person themselves on their own page, or the person a run acts for.
    pub work_for: Option<PersonId>,
}

/// The agent a run uses, when the card goes into a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunningAgent {
    pub holds_toolsets: Vec<i64>,
    pub cleared_for: DataLabel,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Hidden {
    AgentDoesNotHold,
    AgentNotCleared,
    /// A company-key card whose tool no longer reads with the company key alone.
    KeyMoved,
    /// A personal read reaches only the work of the person it was read as.
    SomeoneElsesRead,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Decision {
    /// Shown, with the card's data class now.
    Show(DataLabel),
    /// Kept, but not shown to this reader now.
    Hide(Hidden),
    /// The card must go: Keep cards is off, or no tool reads with its key kind any more.
    Remove,
    /// The reader lost access: the toolset no longer admits them, so their use of the card and
    /// their place on it go. The card stays for anyone still admitted.
    DropUse,
}

/// Whether a toolset admits the reader: an empty role list admits everyone in the company.
pub fn admits(admits_roles: &[String], reader: &Reader) -> bool {
    admits_roles.is_empty() || reader.role.as_ref().is_some_and(|r| admits_roles.iter().any(|a| a == r))
}

/// A card's data class: the higher of its label when read and its toolset's label now.
pub fn data_class(origin: &CardOrigin, toolset: &ToolsetNow) -> DataLabel {
    origin.label_when_read.max(toolset.label)
}

/// The decision for one card, one reader and (in a run) one agent.
pub fn decide(origin: &CardOrigin, toolset: &ToolsetNow, reader: &Reader, agent: Option<&RunningAgent>) -> Decision {
    if !toolset.keep_cards || !toolset.key_kinds_in_use.contains(&origin.read_with) {
        return Decision::Remove;
    }
    if !admits(&toolset.admits_roles, reader) {
        return Decision::DropUse;
    }
    let class = data_class(origin, toolset);
    if let Some(agent) = agent {
        if !agent.holds_toolsets.contains(&origin.toolset) {
            return Decision::Hide(Hidden::AgentDoesNotHold);
        }
        if agent.cleared_for < class {
            return Decision::Hide(Hidden::AgentNotCleared);
        }
    }
    match origin.read_with {
        KeyKind::Company if toolset.tool_reads_with != Some(KeyKind::Company) => Decision::Hide(Hidden::KeyMoved),
        KeyKind::Company => Decision::Show(class),
        KeyKind::ActingFor | KeyKind::OwnKey => {
            let theirs = origin.read_as.is_some_and(|p| p == reader.person && reader.work_for == Some(p));
            if theirs {
                Decision::Show(class)
            } else {
                Decision::Hide(Hidden::SomeoneElsesRead)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use DataLabel::*;
    use KeyKind::*;

    const ALICE: PersonId = PersonId(2);
    const SAM: PersonId = PersonId(3);

    fn toolset() -> ToolsetNow {
        ToolsetNow {
            id: 1,
            label: Internal,
            admits_roles: vec!["sales".into()],
            tool_reads_with: Some(Company),
            key_kinds_in_use: vec![Company],
            keep_cards: true,
        }
    }

    fn origin(read_with: KeyKind, read_as: Option<PersonId>) -> CardOrigin {
        CardOrigin { toolset: 1, read_with, read_as, label_when_read: Internal }
    }

    fn alice() -> Reader {
        Reader { person: ALICE, role: Some("sales".into()), work_for: Some(ALICE) }
    }

    fn agent(cleared: DataLabel) -> RunningAgent {
        RunningAgent { holds_toolsets: vec![1], cleared_for: cleared }
    }

    /// Every rule, one row each: (what, card, toolset now, reader, agent, decision).
    #[test]
    fn the_access_table() {
        let own = |t: &mut ToolsetNow| {
            t.tool_reads_with = Some(OwnKey);
            t.key_kinds_in_use = vec![OwnKey];
        };
        type Row = (&'static str, CardOrigin, ToolsetNow, Reader, Option<RunningAgent>, Decision);
        let mut rows: Vec<Row> = Vec::new();
        let mut t = toolset();
        rows.push((
            "a company-key card, toolset admits her role",
            origin(Company, None),
            t.clone(),
            alice(),
            None,
            Decision::Show(Internal),
        ));
        let bob = Reader { person: PersonId(5), role: Some("support".into()), work_for: Some(PersonId(5)) };
        rows.push((
            "a toolset that does not admit the reader's role: they lost access, their use goes",
            origin(Company, None),
            t.clone(),
            bob,
            None,
            Decision::DropUse,
        ));
        let support = Reader { person: PersonId(5), role: Some("support".into()), work_for: Some(PersonId(5)) };
        rows.push((
            "in a run too, whatever the agent holds: their use goes",
            origin(Company, None),
            t.clone(),
            support,
            Some(agent(Personal)),
            Decision::DropUse,
        ));
        let nobody = Reader { person: PersonId(9), role: None, work_for: Some(PersonId(9)) };
        rows.push((
            "a reader with no role is not admitted by a role list: their use goes",
            origin(Company, None),
            t.clone(),
            nobody.clone(),
            None,
            Decision::DropUse,
        ));
        let mut everyone = toolset();
        everyone.admits_roles.clear();
        rows.push((
            "an empty role list admits everyone",
            origin(Company, None),
            everyone,
            nobody,
            None,
            Decision::Show(Internal),
        ));
        rows.push((
            "the running agent does not hold the toolset",
            origin(Company, None),
            t.clone(),
            alice(),
            Some(RunningAgent { holds_toolsets: vec![7], cleared_for: Personal }),
            Decision::Hide(Hidden::AgentDoesNotHold),
        ));
        rows.push((
            "the agent is cleared below the card's class",
            origin(Company, None),
            t.clone(),
            alice(),
            Some(agent(Public)),
            Decision::Hide(Hidden::AgentNotCleared),
        ));
        rows.push((
            "the agent holds it and is cleared",
            origin(Company, None),
            t.clone(),
            alice(),
            Some(agent(Internal)),
            Decision::Show(Internal),
        ));
        let mut raised = toolset();
        raised.label = Confidential;
        rows.push((
            "raising the toolset's label raises a kept card",
            origin(Company, None),
            raised.clone(),
            alice(),
            None,
            Decision::Show(Confidential),
        ));
        rows.push((
            "an agent cleared to the old label no longer gets it",
            origin(Company, None),
            raised,
            alice(),
            Some(agent(Internal)),
            Decision::Hide(Hidden::AgentNotCleared),
        ));
        let mut lowered = toolset();
        lowered.label = Public;
        rows.push((
            "lowering the label never lowers a card below its label when read",
            origin(Company, None),
            lowered,
            alice(),
            None,
            Decision::Show(Internal),
        ));
        let mut moved = toolset();
        moved.tool_reads_with = Some(ActingFor);
        moved.key_kinds_in_use = vec![Company, ActingFor];
        rows.push((
            "its tool moved to the acting-for header: hidden",
            origin(Company, None),
            moved,
            alice(),
            None,
            Decision::Hide(Hidden::KeyMoved),
        ));
        let mut unticked = toolset();
        unticked.tool_reads_with = None;
        rows.push((
            "its tool is no longer ticked: hidden",
            origin(Company, None),
            unticked,
            alice(),
            None,
            Decision::Hide(Hidden::KeyMoved),
        ));
        own(&mut t);
        rows.push((
            "no tool reads with the company key any more: removed",
            origin(Company, None),
            t.clone(),
            alice(),
            None,
            Decision::Remove,
        ));
        rows.push((
            "her own-key card reaches her own work",
            origin(OwnKey, Some(ALICE)),
            t.clone(),
            alice(),
            None,
            Decision::Show(Internal),
        ));
        let sam = Reader { person: SAM, role: Some("sales".into()), work_for: Some(SAM) };
        rows.push((
            "her own-key card never reaches Sam",
            origin(OwnKey, Some(ALICE)),
            t.clone(),
            sam,
            None,
            Decision::Hide(Hidden::SomeoneElsesRead),
        ));
        let for_sam = Reader { person: ALICE, role: Some("sales".into()), work_for: Some(SAM) };
        rows.push((
            "nor a run Alice starts for Sam's work",
            origin(OwnKey, Some(ALICE)),
            t.clone(),
            for_sam,
            None,
            Decision::Hide(Hidden::SomeoneElsesRead),
        ));
        let mut acting = toolset();
        acting.tool_reads_with = Some(ActingFor);
        acting.key_kinds_in_use = vec![ActingFor];
        rows.push((
            "an acting-for card reaches the person it was read as",
            origin(ActingFor, Some(ALICE)),
            acting.clone(),
            alice(),
            None,
            Decision::Show(Internal),
        ));
        rows.push((
            "an own-key card when no tool uses own keys: removed",
            origin(OwnKey, Some(ALICE)),
            acting,
            alice(),
            None,
            Decision::Remove,
        ));
        let mut off = toolset();
        off.keep_cards = false;
        rows.push(("Keep cards off: removed", origin(Company, None), off, alice(), None, Decision::Remove));

        for (what, o, t, r, a, expected) in rows {
            assert_eq!(decide(&o, &t, &r, a.as_ref()), expected, "{what}");
        }
    }

    #[test]
    fn labels_are_ordered_by_sensitivity() {
        assert!(Public < Internal && Internal < Confidential && Confidential < Personal);
        for l in [Public, Internal, Confidential, Personal] {
            assert_eq!(DataLabel::parse(l.as_str()), Some(l));
        }
        for k in [Company, ActingFor, OwnKey] {
            assert_eq!(KeyKind::parse(k.as_str()), Some(k));
        }
    }
}
