//! A connector's tools as the admin ticks them: each ticked tool's name, description and
//! parameters are pinned when ticked; a run is offered the pinned copy, and a listing that changed
//! since waits for an admin to approve it again.

use super::*;
use crate::cards::access::RunningAgent;
use crate::cards::pins::{compare, Drift, Listed, ToolCopy, ToolPin};
use crate::cards::source::ToolInfo;

/// A connector's live listing, and the pinned copies of its ticked tools compared with it.
pub(super) struct Listing {
    pub(super) tools: Vec<ToolInfo>,
    pub(super) pins: Vec<ToolPin>,
}

impl Connectors {
    /// Ticks or unticks one tool. Only a tool the source lists now can be ticked: a read tool,
    /// or a tool that acts, whose calls in runs wait in the person's Inbox. The two are kept
    /// apart. Unticking a read tool may remove cards no tool reads any more.
    pub async fn tick_tool(&self, admin: &Person, id: i64, tool: &str, on: bool) -> Result<String, MemoryError> {
        must_be_admin(admin)?;
        let mut c = self.reads.connector(id).await?;
        let acts = if on {
            let listed = match self.store.company_key(id).await? {
                Some(key) => self.reads.listing(&c, &key).await?.map(|l| l.tools).unwrap_or_default(),
                None => Vec::new(),
            };
            let Some(info) = listed.iter().find(|t| t.name == tool && (t.access == "read" || t.access == "write"))
            else {
                return Err(MemoryError::Invalid(format!("{tool} is not a tool the source lists")));
            };
            // What the admin ticks is the tool as listed now: that copy is what runs are given.
            let actor = Actor { person: Some(admin.id), at: self.reads.now() };
            self.store.pin_tool(c.id, &ToolCopy::of(info), actor).await?;
            info.access == "write"
        } else {
            c.acting.iter().any(|t| t == tool)
        };
        let list = if acts { &mut c.acting } else { &mut c.ticked };
        list.retain(|t| t != tool);
        if on {
            list.push(tool.to_string());
        }
        self.save_settings(admin, &c).await
    }

    /// An admin approves a ticked tool's changed listing as their page showed it (`seen` is the
    /// page's [`ToolPin::seen`]): that copy is pinned, audited, and runs are given it from now on.
    /// A listing that changed again since the page was shown is refused, to be looked at first.
    pub async fn reapprove_tool(&self, admin: &Person, id: i64, tool: &str, seen: i64) -> Result<String, MemoryError> {
        must_be_admin(admin)?;
        let c = self.reads.connector(id).await?;
        let pin = self.reads.ticked_pins(&c).await?.into_iter().find(|p| p.copy.tool == tool);
        let Some(pin) = pin else {
            return Err(MemoryError::Invalid(format!("{tool} is not a ticked tool of {}", c.name)));
        };
        let Some(drift) = pin.drift.as_ref() else {
            return Err(MemoryError::Invalid(format!("{tool}'s listing has not changed since it was approved")));
        };
        if pin.seen() != seen {
            return Err(MemoryError::Invalid(format!(
                "{} changed {tool}'s listing again since this page was shown; look at it again before approving",
                c.name
            )));
        }
        let Listed::Changed { description, parameters } = &drift.listed else {
            return Err(MemoryError::Invalid(format!(
                "{} no longer lists {tool}, so there is nothing to approve; untick it instead",
                c.name
            )));
        };
        let copy =
            ToolCopy { tool: tool.to_string(), description: description.clone(), parameters: parameters.clone() };
        let actor = Actor { person: Some(admin.id), at: self.reads.now() };
        self.store.pin_tool(c.id, &copy, actor).await?;
        Ok(format!("Approved {tool} as {} lists it now; runs are given this copy from now on", c.name))
    }
}

impl Reads {
    /// The pinned copies of the connector's ticked tools, as last compared with a listing.
    pub(super) async fn ticked_pins(&self, c: &Connector) -> Result<Vec<ToolPin>, MemoryError> {
        let ticked = |p: &ToolPin| c.ticked.contains(&p.copy.tool) || c.acting.contains(&p.copy.tool);
        Ok(self.store.tool_pins(c.id).await?.into_iter().filter(ticked).collect())
    }

    /// Reads the connector's listing with the company key. Every read of a listing for a
    /// connector goes through here, so each one compares the ticked tools with their pinned
    /// copies: a difference (or a difference gone) is noted for admins, and the pinned copy stays.
    ///
    /// A ticked tool with no pinned copy was ticked before copies were pinned (or set up in the
    /// store directly, as the demo's connectors are). A migration cannot read a source, so such a
    /// tool is pinned here, from the first listing read: the copy closest to what its admin
    /// ticked, audited as pinned by no one.
    pub(super) async fn listing(&self, c: &Connector, key: &str) -> Result<Result<Listing, SourceError>, MemoryError> {
        let tools = match self.source.tools(&c.base_url, key).await {
            Ok(tools) => tools,
            Err(e) => return Ok(Err(e)),
        };
        let mut pins = self.ticked_pins(c).await?;
        let at = self.now();
        let noticed = Actor { person: None, at };
        for name in c.ticked.iter().chain(&c.acting) {
            match pins.iter_mut().find(|p| &p.copy.tool == name) {
                Some(pin) => {
                    let now = compare(&pin.copy, &tools);
                    if now.as_ref() != pin.drift.as_ref().map(|d| &d.listed) {
                        self.store.note_listing(c.id, name, now.as_ref(), noticed).await?;
                        pin.drift = now.map(|listed| Drift { listed, seen_at: at });
                    }
                }
                None => {
                    if let Some(info) = tools.iter().find(|t| &t.name == name) {
                        let copy = ToolCopy::of(info);
                        self.store.pin_tool(c.id, &copy, noticed).await?;
                        pins.push(ToolPin { connector: c.id, copy, pinned_at: at, drift: None });
                    }
                }
            }
        }
        Ok(Ok(Listing { tools, pins }))
    }
}

impl RunCards {
    /// The ticked tools the agent's toolsets hold, reads and tools that act, each as its pinned
    /// copy: what a live listing says of a tool never reaches a model. A tool the listing no
    /// longer has is not offered; a connector that cannot list its tools now is left out, and
    /// logged.
    pub async fn run_tools(&self, agent: &RunningAgent) -> Result<Vec<RunTool>, MemoryError> {
        let mut out = Vec::new();
        for id in &agent.holds_toolsets {
            let Some(c) = self.store.connector(*id).await? else { continue };
            if c.killed || (c.ticked.is_empty() && c.acting.is_empty()) || c.label > agent.cleared_for {
                continue;
            }
            let Some(key) = self.store.company_key(c.id).await? else { continue };
            let pins = match self.reads.listing(&c, &key).await? {
                Ok(l) => l.pins,
                Err(e) => {
                    tracing::warn!(connector = c.id, error = %e, "the connector's tools were not listed for a run");
                    continue;
                }
            };
            for pin in pins.into_iter().filter(|p| !matches!(p.drift, Some(Drift { listed: Listed::Gone, .. }))) {
                out.push(RunTool {
                    connector: c.id,
                    connector_name: c.name.clone(),
                    acts: c.acting.contains(&pin.copy.tool),
                    tool: pin.copy.tool,
                    description: pin.copy.description,
                    parameters: pin.copy.parameters,
                });
            }
        }
        Ok(out)
    }
}
