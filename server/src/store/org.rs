//! The organisation (company, roles, teams, people, agents): the same refusals, audit rows and
//! ordering on both backends. Names sort by their bytes ([`BY_BYTES`]), whatever the database's locale.
//!
//! Written once for both backends (see "Written once" in `store`); each gives `around`, the people
//! around a person, which PostgreSQL reads in one statement (`LATERAL`) and SQLite in two. The
//! organisation's bounded reads (`OrgListing`: pages of people, searches, a team's members) are in
//! `store::org_listing`, which shares the row readers here.

macro_rules! org_store {
    () => {
        use super::{audit, begin_read, begin_write, lock, locks, Conn, DbRow, ThisStore, BY_BYTES, FOR_UPDATE};
        use crate::store::{OrBackend, OrDuplicate};
        use async_trait::async_trait;
        use engine::org::{
            Agent, AgentId, AuditEntry, Company, Directory, LocaleName, Person, PersonId, Role, RoleId, RoleSlug, Team,
            TeamId, TimeZoneName,
        };
        use engine::store::{Actor, Departure, NewAgent, NewPerson, OrgStore, StoreError};
        use sqlx::Row;

        pub(crate) fn role_from(row: &DbRow) -> Result<Role, StoreError> {
            let slug: String = row.get("slug");
            Ok(Role {
                id: RoleId(row.get("id")),
                slug: RoleSlug::parse(&slug).or_backend()?,
                name: row.get("name"),
                company_core_limit: row.get::<i64, _>("company_core_limit") as u32,
            })
        }

        pub(crate) fn team_from(row: &DbRow) -> Team {
            Team {
                id: TeamId(row.get("id")),
                name: row.get("name"),
                lead: row.get::<Option<i64>, _>("lead_id").map(PersonId),
                role: row.get::<Option<i64>, _>("role_id").map(RoleId),
            }
        }

        /// Refuses with `LastAdmin` when `person` is the only current admin left. Takes the admins' lock
        /// first, held to the end of the caller's transaction.
        pub(super) async fn keep_an_admin(conn: &mut Conn, person: PersonId) -> Result<(), StoreError> {
            lock(&mut *conn, locks::ADMINS, 0).await?;
            let is_admin: Option<bool> =
                sqlx::query_scalar("SELECT is_admin FROM people WHERE id = $1 AND left_at IS NULL")
                    .bind(person.0)
                    .fetch_optional(&mut *conn)
                    .await
                    .or_backend()?;
            if is_admin != Some(true) {
                return Ok(());
            }
            let others: i64 =
                sqlx::query_scalar("SELECT COUNT(*) FROM people WHERE is_admin AND left_at IS NULL AND id <> $1")
                    .bind(person.0)
                    .fetch_one(&mut *conn)
                    .await
                    .or_backend()?;
            if others == 0 {
                return Err(StoreError::LastAdmin);
            }
            Ok(())
        }

        pub(crate) fn person_from(row: &DbRow) -> Person {
            Person {
                id: PersonId(row.get("id")),
                name: row.get("name"),
                email: row.get("email"),
                is_admin: row.get("is_admin"),
                main_team: row.get::<Option<i64>, _>("main_team_id").map(TeamId),
                role_override: row.get::<Option<i64>, _>("role_override_id").map(RoleId),
                manager: row.get::<Option<i64>, _>("manager_id").map(PersonId),
                left_at: row.get("left_at"),
            }
        }

        /// The columns every read of an agent takes.
        pub(crate) const AGENT_COLUMNS: &str =
            "id, name, template, role_id, owner_id, team_copy_id, description, copy_of_id, private";

        pub(crate) fn agent_from(row: &DbRow) -> Agent {
            Agent {
                id: AgentId(row.get("id")),
                name: row.get("name"),
                template: row.get("template"),
                role: row.get::<Option<i64>, _>("role_id").map(RoleId),
                owner: PersonId(row.get("owner_id")),
                team_copy: row.get::<Option<i64>, _>("team_copy_id").map(TeamId),
                description: row.get("description"),
                copy_of: row.get::<Option<i64>, _>("copy_of_id").map(AgentId),
                private: row.get("private"),
            }
        }

        pub(crate) const PERSON_COLUMNS: &str =
            "id, name, email, is_admin, main_team_id, role_override_id, manager_id, left_at";

        #[async_trait]
        impl OrgStore for ThisStore {
            async fn company(&self) -> Result<Option<Company>, StoreError> {
                let row = sqlx::query("SELECT name, time_zone, locale FROM company WHERE id = 1")
                    .fetch_optional(self.pool())
                    .await
                    .or_backend()?;
                row.map(|r| {
                    let tz: String = r.get("time_zone");
                    let locale: String = r.get("locale");
                    Ok(Company {
                        name: r.get("name"),
                        time_zone: TimeZoneName::parse(&tz).or_backend()?,
                        locale: LocaleName::parse(&locale).or_backend()?,
                    })
                })
                .transpose()
            }

            async fn create_company(&self, company: &Company, actor: Actor) -> Result<(), StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                sqlx::query("INSERT INTO company (id, name, time_zone, locale, created_at) VALUES (1, $1, $2, $3, $4)")
                    .bind(&company.name)
                    .bind(company.time_zone.as_str())
                    .bind(company.locale.as_str())
                    .bind(actor.at)
                    .execute(&mut *tx)
                    .await
                    .or_duplicate(|| "company".into())?;
                audit(&mut tx, actor, "company.create", &company.name, company.time_zone.as_str()).await?;
                tx.commit().await.or_backend()
            }

            async fn set_company_locale(&self, locale: &LocaleName, actor: Actor) -> Result<(), StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let changed = sqlx::query("UPDATE company SET locale = $1 WHERE id = 1")
                    .bind(locale.as_str())
                    .execute(&mut *tx)
                    .await
                    .or_backend()?
                    .rows_affected();
                if changed == 0 {
                    return Err(StoreError::NotFound("company".into()));
                }
                audit(&mut tx, actor, "company.locale", "company", locale.as_str()).await?;
                tx.commit().await.or_backend()
            }

            async fn directory(&self) -> Result<Directory, StoreError> {
                // One snapshot, so the four lists agree with each other.
                let mut tx = begin_read(self.pool()).await?;
                let roles = sqlx::query(&format!(
                    "SELECT id, slug, name, company_core_limit FROM roles ORDER BY name{BY_BYTES}"
                ))
                .fetch_all(&mut *tx)
                .await
                .or_backend()?
                .iter()
                .map(role_from)
                .collect::<Result<Vec<_>, _>>()?;
                let teams =
                    sqlx::query(&format!("SELECT id, name, lead_id, role_id FROM teams ORDER BY name{BY_BYTES}"))
                        .fetch_all(&mut *tx)
                        .await
                        .or_backend()?
                        .iter()
                        .map(team_from)
                        .collect();
                let people = sqlx::query(&format!("SELECT {PERSON_COLUMNS} FROM people ORDER BY name{BY_BYTES}"))
                    .fetch_all(&mut *tx)
                    .await
                    .or_backend()?
                    .iter()
                    .map(person_from)
                    .collect();
                let agents = sqlx::query(&format!(
                    "SELECT {AGENT_COLUMNS} FROM agents WHERE NOT private ORDER BY name{BY_BYTES}"
                ))
                .fetch_all(&mut *tx)
                .await
                .or_backend()?
                .iter()
                .map(agent_from)
                .collect();
                tx.commit().await.or_backend()?;
                Ok(Directory { people, teams, roles, agents })
            }

            async fn person(&self, id: PersonId) -> Result<Option<Person>, StoreError> {
                let row = sqlx::query(&format!("SELECT {PERSON_COLUMNS} FROM people WHERE id = $1"))
                    .bind(id.0)
                    .fetch_optional(self.pool())
                    .await
                    .or_backend()?;
                Ok(row.as_ref().map(person_from))
            }

            async fn credentials(&self, email: &str) -> Result<Option<(Person, String)>, StoreError> {
                let row = sqlx::query(&format!(
                    "SELECT {PERSON_COLUMNS}, password_hash FROM people WHERE email = $1 AND left_at IS NULL"
                ))
                .bind(email.trim().to_lowercase())
                .fetch_optional(self.pool())
                .await
                .or_backend()?;
                Ok(row.map(|r| (person_from(&r), r.get("password_hash"))))
            }

            async fn role(&self, slug: &RoleSlug) -> Result<Option<Role>, StoreError> {
                let row = sqlx::query("SELECT id, slug, name, company_core_limit FROM roles WHERE slug = $1")
                    .bind(slug.as_str())
                    .fetch_optional(self.pool())
                    .await
                    .or_backend()?;
                row.as_ref().map(role_from).transpose()
            }

            async fn role_by_id(&self, id: RoleId) -> Result<Option<Role>, StoreError> {
                let row = sqlx::query("SELECT id, slug, name, company_core_limit FROM roles WHERE id = $1")
                    .bind(id.0)
                    .fetch_optional(self.pool())
                    .await
                    .or_backend()?;
                row.as_ref().map(role_from).transpose()
            }

            async fn team(&self, id: TeamId) -> Result<Option<Team>, StoreError> {
                let row = sqlx::query("SELECT id, name, lead_id, role_id FROM teams WHERE id = $1")
                    .bind(id.0)
                    .fetch_optional(self.pool())
                    .await
                    .or_backend()?;
                Ok(row.as_ref().map(team_from))
            }

            async fn team_with_role(&self, id: TeamId) -> Result<Option<(Team, Option<Role>)>, StoreError> {
                use crate::store::{team_with_role_from, JOINED_ROLE_COLUMNS, JOINED_TEAM_COLUMNS};
                let row = sqlx::query(&format!(
                    "SELECT {JOINED_TEAM_COLUMNS}, {JOINED_ROLE_COLUMNS} FROM teams t LEFT JOIN roles r ON r.id = \
                     t.role_id \
                     WHERE t.id = $1"
                ))
                .bind(id.0)
                .fetch_optional(self.pool())
                .await
                .or_backend()?;
                row.as_ref().map(team_with_role_from).transpose()
            }

            async fn agent(&self, id: AgentId) -> Result<Option<Agent>, StoreError> {
                let row = sqlx::query(&format!("SELECT {AGENT_COLUMNS} FROM agents WHERE id = $1"))
                    .bind(id.0)
                    .fetch_optional(self.pool())
                    .await
                    .or_backend()?;
                Ok(row.as_ref().map(agent_from))
            }

            async fn create_role(
                &self,
                slug: &RoleSlug,
                name: &str,
                limit: u32,
                actor: Actor,
            ) -> Result<Role, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let id: i64 = sqlx::query_scalar(
                    "INSERT INTO roles (slug, name, company_core_limit, created_at) VALUES ($1, $2, $3, $4) RETURNING \
                     id",
                )
                .bind(slug.as_str())
                .bind(name)
                .bind(i64::from(limit))
                .bind(actor.at)
                .fetch_one(&mut *tx)
                .await
                .or_duplicate(|| name.to_string())?;
                audit(&mut tx, actor, "role.create", &slug.to_string(), name).await?;
                tx.commit().await.or_backend()?;
                Ok(Role { id: RoleId(id), slug: slug.clone(), name: name.to_string(), company_core_limit: limit })
            }

            async fn create_team(&self, name: &str, role: Option<RoleId>, actor: Actor) -> Result<Team, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let id: i64 = sqlx::query_scalar(
                    "INSERT INTO teams (name, role_id, created_at) VALUES ($1, $2, $3) RETURNING id",
                )
                .bind(name)
                .bind(role.map(|r| r.0))
                .bind(actor.at)
                .fetch_one(&mut *tx)
                .await
                .or_duplicate(|| name.to_string())?;
                audit(&mut tx, actor, "team.create", &format!("team:{id}"), name).await?;
                tx.commit().await.or_backend()?;
                Ok(Team { id: TeamId(id), name: name.to_string(), lead: None, role })
            }

            async fn create_person(&self, p: &NewPerson, actor: Actor) -> Result<Person, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let email = p.email.trim().to_lowercase();
                let id: i64 = sqlx::query_scalar(
                    "INSERT INTO people (name, email, password_hash, is_admin, main_team_id, created_at) \
                     VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
                )
                .bind(&p.name)
                .bind(&email)
                .bind(&p.password_hash)
                .bind(p.is_admin)
                .bind(p.main_team.map(|t| t.0))
                .bind(actor.at)
                .fetch_one(&mut *tx)
                .await
                .or_duplicate(|| email.clone())?;
                audit(&mut tx, actor, "person.create", &format!("person:{id}"), &p.name).await?;
                tx.commit().await.or_backend()?;
                Ok(Person {
                    id: PersonId(id),
                    name: p.name.clone(),
                    email,
                    is_admin: p.is_admin,
                    main_team: p.main_team,
                    role_override: None,
                    manager: None,
                    left_at: None,
                })
            }

            async fn create_agent(&self, a: &NewAgent, actor: Actor) -> Result<Agent, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let id: i64 = sqlx::query_scalar(
                    "INSERT INTO agents (name, template, role_id, owner_id, team_copy_id, created_at) \
                     VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
                )
                .bind(&a.name)
                .bind(&a.template)
                .bind(a.role.map(|r| r.0))
                .bind(a.owner.0)
                .bind(a.team_copy.map(|t| t.0))
                .bind(actor.at)
                .fetch_one(&mut *tx)
                .await
                .or_duplicate(|| a.name.clone())?;
                audit(&mut tx, actor, "agent.create", &format!("agent:{id}"), &a.name).await?;
                tx.commit().await.or_backend()?;
                Ok(Agent {
                    id: AgentId(id),
                    name: a.name.clone(),
                    template: a.template.clone(),
                    role: a.role,
                    owner: a.owner,
                    team_copy: a.team_copy,
                    description: String::new(),
                    copy_of: None,
                    private: false,
                })
            }

            async fn set_team_role(&self, team: TeamId, role: Option<RoleId>, actor: Actor) -> Result<(), StoreError> {
                set_column(self, "teams", "role_id", team.0, role.map(|r| r.0), actor, "team.role", "team").await
            }

            async fn set_team_lead(
                &self,
                team: TeamId,
                lead: Option<PersonId>,
                actor: Actor,
            ) -> Result<(), StoreError> {
                set_column(self, "teams", "lead_id", team.0, lead.map(|p| p.0), actor, "team.lead", "team").await
            }

            async fn set_person_role(
                &self,
                person: PersonId,
                role: Option<RoleId>,
                actor: Actor,
            ) -> Result<(), StoreError> {
                set_column(
                    self,
                    "people",
                    "role_override_id",
                    person.0,
                    role.map(|r| r.0),
                    actor,
                    "person.role",
                    "person",
                )
                .await
            }

            async fn set_password_hash(&self, person: PersonId, hash: &str, actor: Actor) -> Result<(), StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let set = sqlx::query("UPDATE people SET password_hash = $1 WHERE id = $2 AND left_at IS NULL")
                    .bind(hash)
                    .bind(person.0)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?;
                if set.rows_affected() == 0 {
                    return Err(StoreError::NotFound(format!("person {} who has not left", person.0)));
                }
                audit(&mut tx, actor, "person.password", &format!("person:{}", person.0), "").await?;
                tx.commit().await.or_backend()?;
                Ok(())
            }

            async fn mark_left(&self, person: PersonId, actor: Actor) -> Result<Departure, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                keep_an_admin(&mut tx, person).await?;
                // The update locks the person's row: a second departure waits, then finds them gone.
                let marked = sqlx::query("UPDATE people SET left_at = $1 WHERE id = $2 AND left_at IS NULL")
                    .bind(actor.at)
                    .bind(person.0)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?;
                if marked.rows_affected() == 0 {
                    return Err(StoreError::NotFound(format!("person {} who has not left", person.0)));
                }
                // A lead who left leads no more; the team keeps its history in the audit log.
                let led: Vec<i64> = sqlx::query_scalar("SELECT id FROM teams WHERE lead_id = $1 ORDER BY id")
                    .bind(person.0)
                    .fetch_all(&mut *tx)
                    .await
                    .or_backend()?;
                for team in led {
                    sqlx::query("UPDATE teams SET lead_id = NULL WHERE id = $1")
                        .bind(team)
                        .execute(&mut *tx)
                        .await
                        .or_backend()?;
                    audit(&mut tx, actor, "team.lead", &format!("team:{team}"), &format!("{} -> none: left", person.0))
                        .await?;
                }
                let mut d = Departure::default();
                for revoke in [
                    "UPDATE api_tokens SET revoked_at = $1 WHERE person_id = $2 AND revoked_at IS NULL",
                    "UPDATE agent_tokens SET revoked_at = $1 WHERE created_by = $2 AND revoked_at IS NULL",
                ] {
                    let done =
                        sqlx::query(revoke).bind(actor.at).bind(person.0).execute(&mut *tx).await.or_backend()?;
                    d.tokens += done.rows_affected() as u32;
                }
                // Uses go first and are counted here, before the cards' cascade could remove them unseen.
                let uses = sqlx::query(
                    "DELETE FROM card_uses WHERE person_id = $1 OR card_id IN (SELECT id FROM cards WHERE read_as = \
                     $1)",
                )
                .bind(person.0)
                .execute(&mut *tx)
                .await
                .or_backend()?;
                d.uses = uses.rows_affected() as u32;
                let cards = sqlx::query("DELETE FROM cards WHERE read_as = $1")
                    .bind(person.0)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?;
                d.cards = cards.rows_affected() as u32;
                sqlx::query("DELETE FROM person_keys WHERE person_id = $1")
                    .bind(person.0)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?;
                sqlx::query("UPDATE prepare_my_day SET enabled = FALSE WHERE person_id = $1")
                    .bind(person.0)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?;
                // Their lists were theirs alone: closed, never deleted.
                sqlx::query(
                    "UPDATE list_snapshots SET closed_at = $1, closed_reason = 'left' WHERE person_id = $2 AND \
                     closed_at IS NULL",
                )
                .bind(actor.at)
                .bind(person.0)
                .execute(&mut *tx)
                .await
                .or_backend()?;
                // Their private lessons were theirs alone too: closed, never deleted, and read by nobody.
                // What came from their work for a team or the company stays with its reviewers.
                sqlx::query(
                    "UPDATE lessons SET state = 'retired', state_at = $1, state_reason = 'left', \
                     valid_to = COALESCE(valid_to, $1) WHERE person_id = $2 AND scope IN ('personal', 'agent') \
                     AND state IN ('accepted', 'waiting', 'contested')",
                )
                .bind(actor.at)
                .bind(person.0)
                .execute(&mut *tx)
                .await
                .or_backend()?;
                let detail = format!("{} tokens revoked, {} uses and {} cards removed", d.tokens, d.uses, d.cards);
                audit(&mut tx, actor, "person.left", &format!("person:{}", person.0), &detail).await?;
                tx.commit().await.or_backend()?;
                Ok(d)
            }

            async fn set_agent_role(
                &self,
                agent: AgentId,
                role: Option<RoleId>,
                actor: Actor,
            ) -> Result<(), StoreError> {
                set_column(self, "agents", "role_id", agent.0, role.map(|r| r.0), actor, "agent.role", "agent").await
            }

            async fn set_company_core_limit(&self, role: RoleId, limit: u32, actor: Actor) -> Result<(), StoreError> {
                set_column(
                    self,
                    "roles",
                    "company_core_limit",
                    role.0,
                    Some(i64::from(limit)),
                    actor,
                    "role.company_core_limit",
                    "role",
                )
                .await
            }

            async fn audit_log(&self, limit: u32) -> Result<Vec<AuditEntry>, StoreError> {
                let rows = sqlx::query(
                    "SELECT at, actor_id, action, subject, detail FROM audit_log ORDER BY id DESC LIMIT $1",
                )
                .bind(i64::from(limit))
                .fetch_all(self.pool())
                .await
                .or_backend()?;
                Ok(rows
                    .iter()
                    .map(|r| AuditEntry {
                        at: r.get("at"),
                        actor: r.get::<Option<i64>, _>("actor_id").map(PersonId),
                        action: r.get("action"),
                        subject: r.get("subject"),
                        detail: r.get("detail"),
                    })
                    .collect())
            }

            async fn around(
                &self,
                person: PersonId,
                teammates: u32,
            ) -> Result<engine::runs::whoswho::Around, StoreError> {
                around(self, person, teammates).await
            }
        }

        /// Changes one nullable id column and records the old and new value in the audit log, together.
        /// The row is read [`FOR_UPDATE`], so the old value in the audit row is the one actually replaced.
        #[allow(clippy::too_many_arguments)]
        async fn set_column(
            store: &ThisStore,
            table: &'static str,
            column: &'static str,
            id: i64,
            value: Option<i64>,
            actor: Actor,
            action: &str,
            kind: &str,
        ) -> Result<(), StoreError> {
            let mut tx = begin_write(store.pool()).await?;
            let old: Option<Option<i64>> =
                sqlx::query_scalar(&format!("SELECT {column} FROM {table} WHERE id = $1{FOR_UPDATE}"))
                    .bind(id)
                    .fetch_optional(&mut *tx)
                    .await
                    .or_backend()?;
            let Some(old) = old else {
                return Err(StoreError::NotFound(format!("{kind}:{id}")));
            };
            sqlx::query(&format!("UPDATE {table} SET {column} = $1 WHERE id = $2"))
                .bind(value)
                .bind(id)
                .execute(&mut *tx)
                .await
                .or_backend()?;
            let show = |v: Option<i64>| v.map(|v| v.to_string()).unwrap_or_else(|| "none".to_string());
            audit(&mut tx, actor, action, &format!("{kind}:{id}"), &format!("{} -> {}", show(old), show(value)))
                .await?;
            tx.commit().await.or_backend()
        }
    };
}
pub(crate) use org_store;
