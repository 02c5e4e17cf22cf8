//! The ConnectorStore: connectors, their keys and record shapes, the hourly limit of reads, and what
//! each agent holds.
//!
//! Written once for both backends (see "Written once" in `store`).

macro_rules! connectors_store {
    () => {
        use super::*;
        use crate::secrets::{Place, SecretBox};
        use crate::store::sealing::{check_still_opens, open_stored, sealer};
        use crate::store::{OrBackend, OrDuplicate};
        use engine::cards::pins::{Drift, Listed, ToolCopy, ToolPin};
        use engine::cards::store::ConnectorStore;

        impl ThisStore {
            /// The sealer for a key written in this transaction, once the key check (read `FOR_SHARE`, so a
            /// rotation waits for this write or this write for it) says it is still the database's key.
            async fn sealer_in(&self, conn: &mut Conn) -> Result<&SecretBox, StoreError> {
                let sealer = sealer(self.secrets())?;
                check_still_opens(sealer, super::super::secrets::key_check(conn).await?)?;
                Ok(sealer)
            }
        }

        #[async_trait]
        impl ConnectorStore for ThisStore {
            async fn connectors(&self) -> Result<Vec<Connector>, StoreError> {
                let rows = sqlx::query(&format!("SELECT * FROM connectors ORDER BY name{BY_BYTES}"))
                    .fetch_all(self.pool())
                    .await
                    .or_backend()?;
                rows.iter().map(connector_from).collect()
            }

            async fn connector(&self, id: i64) -> Result<Option<Connector>, StoreError> {
                let row = sqlx::query("SELECT * FROM connectors WHERE id = $1")
                    .bind(id)
                    .fetch_optional(self.pool())
                    .await
                    .or_backend()?;
                row.as_ref().map(connector_from).transpose()
            }

            async fn create_connector(
                &self,
                c: &NewConnector,
                company_key: Option<&str>,
                actor: Actor,
            ) -> Result<Connector, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                // The key check first, before any row is written: a rotation locks it before the key tables.
                let sealer = match company_key {
                    Some(_) => Some(self.sealer_in(&mut tx).await?),
                    None => None,
                };
                let mut row = sqlx::query(
                    "INSERT INTO connectors (name, base_url, key_mode, ticked, label, admits_roles, keep_cards, \
                     fact_limits, free_text_soft_mins, free_text_hard_mins, hourly_limit, \
                     created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) \
                     RETURNING *",
                )
                .bind(&c.name)
                .bind(&c.base_url)
                .bind(c.key_mode.as_str())
                .bind(to_json(&c.ticked))
                .bind(c.label.as_str())
                .bind(to_json(&c.admits_roles))
                .bind(c.keep_cards)
                .bind(to_json(&c.facts))
                .bind(i64::from(c.free_text.soft_mins))
                .bind(i64::from(c.free_text.hard_mins))
                .bind(i64::from(c.hourly_limit))
                .bind(actor.at)
                .bind(actor.at)
                .fetch_one(&mut *tx)
                .await
                .or_duplicate(|| c.name.clone())?;
                // The key is sealed for the row it lives in, whose id the insert has just given.
                if let (Some(key), Some(sealer)) = (company_key, sealer) {
                    let id: i64 = row.get("id");
                    row = sqlx::query("UPDATE connectors SET company_key = $1 WHERE id = $2 RETURNING *")
                        .bind(sealer.seal(key, Place::CompanyKey { connector: id }))
                        .bind(id)
                        .fetch_one(&mut *tx)
                        .await
                        .or_backend()?;
                }
                let connector = connector_from(&row)?;
                audit(&mut tx, actor, "connector.create", &format!("connector:{}", connector.id), &c.name).await?;
                tx.commit().await.or_backend()?;
                Ok(connector)
            }

            async fn company_key(&self, connector: i64) -> Result<Option<String>, StoreError> {
                let key: Option<Option<String>> =
                    sqlx::query_scalar("SELECT company_key FROM connectors WHERE id = $1")
                        .bind(connector)
                        .fetch_optional(self.pool())
                        .await
                        .or_backend()?;
                key.flatten().map(|k| open_stored(self.secrets(), &k, Place::CompanyKey { connector })).transpose()
            }

            async fn set_company_key(&self, connector: i64, key: &str, actor: Actor) -> Result<(), StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                // The key check first, before the row is written: a rotation locks it before the key tables.
                let sealed = self.sealer_in(&mut tx).await?.seal(key, Place::CompanyKey { connector });
                let done = sqlx::query("UPDATE connectors SET company_key = $1, updated_at = $2 WHERE id = $3")
                    .bind(sealed)
                    .bind(actor.at)
                    .bind(connector)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?;
                if done.rows_affected() == 0 {
                    return Err(StoreError::NotFound(format!("connector {connector}")));
                }
                audit(
                    &mut tx,
                    actor,
                    "connector.company_key",
                    &format!("connector:{connector}"),
                    "company key replaced",
                )
                .await?;
                tx.commit().await.or_backend()
            }

            async fn person_key(&self, connector: i64, person: PersonId) -> Result<Option<String>, StoreError> {
                let key: Option<String> =
                    sqlx::query_scalar("SELECT secret FROM person_keys WHERE connector_id = $1 AND person_id = $2")
                        .bind(connector)
                        .bind(person.0)
                        .fetch_optional(self.pool())
                        .await
                        .or_backend()?;
                key.map(|k| open_stored(self.secrets(), &k, Place::PersonKey { connector, person: person.0 }))
                    .transpose()
            }

            async fn set_person_key(
                &self,
                connector: i64,
                person: PersonId,
                secret: &str,
                actor: Actor,
            ) -> Result<(), StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let sealed =
                    self.sealer_in(&mut tx).await?.seal(secret, Place::PersonKey { connector, person: person.0 });
                sqlx::query(
                    "INSERT INTO person_keys (connector_id, person_id, secret, created_at) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (connector_id, person_id) DO UPDATE SET secret = excluded.secret",
                )
                .bind(connector)
                .bind(person.0)
                .bind(sealed)
                .bind(actor.at)
                .execute(&mut *tx)
                .await
                .or_backend()?;
                audit(
                    &mut tx,
                    actor,
                    "person_key.set",
                    &format!("connector:{connector}"),
                    &format!("person:{}", person.0),
                )
                .await?;
                tx.commit().await.or_backend()
            }

            async fn shapes(&self, connector: i64) -> Result<Vec<RecordShape>, StoreError> {
                let rows = sqlx::query(&format!(
                    "SELECT * FROM record_shapes WHERE connector_id = $1 ORDER BY tool{BY_BYTES}"
                ))
                .bind(connector)
                .fetch_all(self.pool())
                .await
                .or_backend()?;
                rows.iter()
                    .map(|r| {
                        let fields: Vec<ShapeField> =
                            serde_json::from_str(&r.get::<String, _>("fields")).map_err(|_| bad("shape fields"))?;
                        Ok(RecordShape {
                            connector: r.get("connector_id"),
                            tool: r.get("tool"),
                            kind: r.get("kind"),
                            id_field: r.get("id_field"),
                            version_field: r.get("version_field"),
                            fields,
                            get_tool: r.get("get_tool"),
                            confirmed: r.get("confirmed"),
                        })
                    })
                    .collect()
            }

            async fn save_shape(
                &self,
                s: &RecordShape,
                open_when: Option<&OpenWhen>,
                actor: Actor,
            ) -> Result<(), StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                sqlx::query(
                    "INSERT INTO record_shapes (connector_id, tool, kind, id_field, version_field, fields, get_tool, \
                     open_when, \
                     confirmed) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (connector_id, tool) DO UPDATE SET \
                     kind = excluded.kind, id_field = excluded.id_field, version_field = excluded.version_field, \
                     fields = excluded.fields, get_tool = excluded.get_tool, open_when = excluded.open_when, \
                     confirmed = excluded.confirmed",
                )
                .bind(s.connector)
                .bind(&s.tool)
                .bind(&s.kind)
                .bind(&s.id_field)
                .bind(&s.version_field)
                .bind(to_json(&s.fields))
                .bind(&s.get_tool)
                .bind(open_when.map(to_json))
                .bind(s.confirmed)
                .execute(&mut *tx)
                .await
                .or_backend()?;
                audit(&mut tx, actor, "shape.save", &format!("connector:{}", s.connector), &s.tool).await?;
                tx.commit().await.or_backend()
            }

            async fn open_when(&self, connector: i64, tool: &str) -> Result<Option<OpenWhen>, StoreError> {
                let v: Option<Option<String>> =
                    sqlx::query_scalar("SELECT open_when FROM record_shapes WHERE connector_id = $1 AND tool = $2")
                        .bind(connector)
                        .bind(tool)
                        .fetch_optional(self.pool())
                        .await
                        .or_backend()?;
                Ok(v.flatten().and_then(|s| serde_json::from_str(&s).ok()))
            }

            async fn set_keep_cards(&self, connector: i64, on: bool, actor: Actor) -> Result<u32, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                sqlx::query("UPDATE connectors SET keep_cards = $1, updated_at = $2 WHERE id = $3")
                    .bind(on)
                    .bind(actor.at)
                    .bind(connector)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?;
                let removed = if on { 0 } else { purge(&mut tx, connector, &[]).await? };
                let detail = format!("keep cards {}; {removed} cards removed", if on { "on" } else { "off" });
                audit(&mut tx, actor, "connector.keep_cards", &format!("connector:{connector}"), &detail).await?;
                tx.commit().await.or_backend()?;
                Ok(removed)
            }

            async fn set_key_mode(
                &self,
                connector: i64,
                mode: KeyMode,
                own_key_tools: &[String],
                actor: Actor,
            ) -> Result<u32, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let row = sqlx::query(
                    "UPDATE connectors SET key_mode = $1, own_key_tools = $2, updated_at = $3 WHERE id = $4 RETURNING \
                     *",
                )
                .bind(mode.as_str())
                .bind(to_json(&own_key_tools))
                .bind(actor.at)
                .bind(connector)
                .fetch_one(&mut *tx)
                .await
                .or_backend()?;
                let kinds = connector_from(&row)?.key_kinds_in_use();
                let removed = purge(&mut tx, connector, &kinds).await?;
                let detail = format!("key mode {}; {removed} cards removed", mode.as_str());
                audit(&mut tx, actor, "connector.key_mode", &format!("connector:{connector}"), &detail).await?;
                tx.commit().await.or_backend()?;
                Ok(removed)
            }

            async fn set_killed(&self, connector: i64, killed: bool, actor: Actor) -> Result<(), StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                sqlx::query("UPDATE connectors SET killed = $1, updated_at = $2 WHERE id = $3")
                    .bind(killed)
                    .bind(actor.at)
                    .bind(connector)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?;
                audit(
                    &mut tx,
                    actor,
                    "connector.kill_switch",
                    &format!("connector:{connector}"),
                    if killed { "on" } else { "off" },
                )
                .await?;
                tx.commit().await.or_backend()
            }

            async fn update_connector(&self, c: &Connector, actor: Actor) -> Result<(), StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                sqlx::query(
                    "UPDATE connectors SET ticked = $1, label = $2, admits_roles = $3, fact_limits = $4, \
                     free_text_soft_mins = $5, free_text_hard_mins = $6, hourly_limit = $7, \
                     updated_at = $8, acting_tools = $9, write_targets = $10 WHERE id = $11",
                )
                .bind(to_json(&c.ticked))
                .bind(c.label.as_str())
                .bind(to_json(&c.admits_roles))
                .bind(to_json(&c.facts))
                .bind(i64::from(c.free_text.soft_mins))
                .bind(i64::from(c.free_text.hard_mins))
                .bind(i64::from(c.hourly_limit))
                .bind(actor.at)
                .bind(to_json(&c.acting))
                .bind(to_json(&c.write_targets))
                .bind(c.id)
                .execute(&mut *tx)
                .await
                .or_backend()?;
                let admits = if c.admits_roles.is_empty() { "everyone".to_string() } else { c.admits_roles.join(", ") };
                let detail = format!(
                    "ticked {}; acting {}{}; label {}; admits {admits}; limit {}/h",
                    c.ticked.join(", "),
                    c.acting.join(", "),
                    c.write_targets
                        .iter()
                        .map(|t| format!(" ({} changes a {} named by {})", t.tool, t.kind, t.id_argument))
                        .collect::<String>(),
                    c.label.as_str(),
                    c.hourly_limit
                );
                audit(&mut tx, actor, "connector.settings", &format!("connector:{}", c.id), &detail).await?;
                tx.commit().await.or_backend()
            }

            async fn tool_pins(&self, connector: i64) -> Result<Vec<ToolPin>, StoreError> {
                let rows = sqlx::query("SELECT * FROM tool_pins WHERE connector_id = $1 ORDER BY tool")
                    .bind(connector)
                    .fetch_all(self.pool())
                    .await
                    .or_backend()?;
                rows.iter().map(tool_pin_from).collect()
            }

            async fn pin_tool(&self, connector: i64, copy: &ToolCopy, actor: Actor) -> Result<(), StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                sqlx::query(
                    "INSERT INTO tool_pins (connector_id, tool, description, parameters, pinned_at) VALUES ($1, $2, \
                     $3, $4, $5) \
                     ON CONFLICT (connector_id, tool) DO UPDATE SET description = excluded.description, \
                     parameters = excluded.parameters, pinned_at = excluded.pinned_at, listed_description = NULL, \
                     listed_parameters = NULL, listed_gone = FALSE, listed_at = NULL",
                )
                .bind(connector)
                .bind(&copy.tool)
                .bind(&copy.description)
                .bind(to_json(&copy.parameters))
                .bind(actor.at)
                .execute(&mut *tx)
                .await
                .or_backend()?;
                let by = if actor.person.is_some() { "approved" } else { "pinned from the first listing read" };
                audit(
                    &mut tx,
                    actor,
                    "connector.tool_pin",
                    &format!("connector:{connector}"),
                    &format!("{} {by}", copy.tool),
                )
                .await?;
                tx.commit().await.or_backend()
            }

            async fn note_listing(
                &self,
                connector: i64,
                tool: &str,
                listed: Option<&Listed>,
                actor: Actor,
            ) -> Result<(), StoreError> {
                let (description, parameters, gone) = match listed {
                    None => (None, None, false),
                    Some(Listed::Gone) => (None, None, true),
                    Some(Listed::Changed { description, parameters }) => {
                        (Some(description.as_str()), Some(to_json(parameters)), false)
                    }
                };
                let mut tx = begin_write(self.pool()).await?;
                let done = sqlx::query(
                    "UPDATE tool_pins SET listed_description = $1, listed_parameters = $2, listed_gone = $3, \
                     listed_at = $4 \
                     WHERE connector_id = $5 AND tool = $6",
                )
                .bind(description)
                .bind(parameters)
                .bind(gone)
                .bind(listed.map(|_| actor.at))
                .bind(connector)
                .bind(tool)
                .execute(&mut *tx)
                .await
                .or_backend()?;
                if done.rows_affected() == 0 {
                    return Err(StoreError::NotFound(format!("the pin of {tool} on connector {connector}")));
                }
                let detail = match listed {
                    None => format!("{tool}: the listing agrees with the pinned copy again"),
                    Some(Listed::Gone) => format!("{tool}: no longer listed"),
                    Some(Listed::Changed { .. }) => format!("{tool}: listed differently from the pinned copy"),
                };
                audit(&mut tx, actor, "connector.tool_listing", &format!("connector:{connector}"), &detail).await?;
                tx.commit().await.or_backend()
            }

            async fn claim_read(
                &self,
                connector: i64,
                purpose: &str,
                since: DateTime<Utc>,
                limit: u32,
                at: DateTime<Utc>,
            ) -> Result<bool, StoreError> {
                claim_call(self.pool(), CallLedger::ConnectorRead { connector, purpose }, since, limit, at).await
            }

            async fn agent_access(
                &self,
                agent: engine::org::AgentId,
            ) -> Result<Option<(DataLabel, Vec<i64>)>, StoreError> {
                // One read, so the clearance and the toolsets are of the same moment: a row per toolset, or
                // one without a connector when the agent holds none, and none at all for no such agent.
                let rows: Vec<(String, Option<i64>)> = sqlx::query_as(
                    "SELECT a.clearance, t.connector_id FROM agents a LEFT JOIN agent_toolsets t ON t.agent_id = a.id \
                     WHERE a.id = $1 ORDER BY t.connector_id",
                )
                .bind(agent.0)
                .fetch_all(self.pool())
                .await
                .or_backend()?;
                crate::store::agent_access_from(&rows)
            }

            async fn set_agent_access(
                &self,
                agent: engine::org::AgentId,
                clearance: DataLabel,
                toolsets: &[i64],
                actor: Actor,
            ) -> Result<(), StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                // The update locks the agent's row, so two changes of its toolsets cannot interleave.
                sqlx::query("UPDATE agents SET clearance = $1 WHERE id = $2")
                    .bind(clearance.as_str())
                    .bind(agent.0)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?;
                sqlx::query("DELETE FROM agent_toolsets WHERE agent_id = $1")
                    .bind(agent.0)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?;
                for t in toolsets {
                    sqlx::query("INSERT INTO agent_toolsets (agent_id, connector_id) VALUES ($1, $2)")
                        .bind(agent.0)
                        .bind(t)
                        .execute(&mut *tx)
                        .await
                        .or_backend()?;
                }
                let detail = format!("cleared for {}; holds {:?}", clearance.as_str(), toolsets);
                audit(&mut tx, actor, "agent.access", &format!("agent:{}", agent.0), &detail).await?;
                tx.commit().await.or_backend()
            }
        }

        /// A pinned tool as its row holds it.
        fn tool_pin_from(r: &DbRow) -> Result<ToolPin, StoreError> {
            let json = |col: &str| -> Result<serde_json::Value, StoreError> {
                serde_json::from_str(&r.get::<String, _>(col)).map_err(|_| bad("tool parameters"))
            };
            let listed_at: Option<DateTime<Utc>> = r.get("listed_at");
            let listed = if r.get::<bool, _>("listed_gone") {
                Some(Listed::Gone)
            } else {
                match (r.get::<Option<String>, _>("listed_description"), listed_at) {
                    (Some(description), Some(_)) => {
                        Some(Listed::Changed { description, parameters: json("listed_parameters")? })
                    }
                    _ => None,
                }
            };
            Ok(ToolPin {
                connector: r.get("connector_id"),
                copy: ToolCopy {
                    tool: r.get("tool"),
                    description: r.get("description"),
                    parameters: json("parameters")?,
                },
                pinned_at: r.get("pinned_at"),
                drift: listed.zip(listed_at).map(|(listed, seen_at)| Drift { listed, seen_at }),
            })
        }
    };
}
pub(crate) use connectors_store;
