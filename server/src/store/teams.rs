//! Teams, moves between them and who manages whom. What a change checks first still holds when it
//! writes: on SQLite the transaction begins IMMEDIATE; on PostgreSQL the team's and the people's rows
//! are read `FOR UPDATE` or `FOR SHARE`, and the checks that span many rows (a name free among all
//! the teams, no circle among all the managers) take an advisory lock of their own first.
//!
//! Written once for both backends (see "Written once" in `store`).

macro_rules! teams_store {
    () => {
        use super::org::{person_from, team_from, PERSON_COLUMNS};
        use super::{
            audit, backend, begin_write, is_unique_violation, lock, locks, Conn, ThisStore, FOR_SHARE, FOR_UPDATE,
        };
        use crate::store::OrBackend;
        use async_trait::async_trait;
        use engine::org::teams::{name_taken, TeamChange, TeamStore, TeamStoreError};
        use engine::org::{Person, PersonId, RoleId, Team, TeamId};
        use engine::store::Actor;

        /// Whether the chain of managers above `$1` (itself included) reaches `$2`. `UNION` (not `ALL`) keeps
        /// each id once, so a circle already there ends the walk instead of looping.
        const CHAIN_REACHES: &str = "WITH RECURSIVE up(id) AS (SELECT CAST($1 AS BIGINT) UNION \
             SELECT p.manager_id FROM people p JOIN up ON p.id = up.id WHERE p.manager_id IS NOT NULL) \
             SELECT EXISTS (SELECT 1 FROM up WHERE id = $2)";

        fn show(v: Option<i64>) -> String {
            v.map(|v| v.to_string()).unwrap_or_else(|| "none".to_string())
        }

        async fn name_free(conn: &mut Conn, name: &str, except: Option<TeamId>) -> Result<(), TeamStoreError> {
            let teams: Vec<(i64, String)> =
                sqlx::query_as("SELECT id, name FROM teams").fetch_all(conn).await.or_backend()?;
            match name_taken(name, except, teams.iter().map(|(id, n)| (TeamId(*id), n.as_str()))) {
                Some(other) => Err(TeamStoreError::NameTaken(other)),
                None => Ok(()),
            }
        }

        async fn role_exists(conn: &mut Conn, role: Option<RoleId>) -> Result<(), TeamStoreError> {
            let Some(role) = role else { return Ok(()) };
            let found: Option<i64> = sqlx::query_scalar("SELECT id FROM roles WHERE id = $1")
                .bind(role.0)
                .fetch_optional(conn)
                .await
                .or_backend()?;
            found.map(|_| ()).ok_or(TeamStoreError::NoSuchRole)
        }

        /// Row locks: a row written here is read [`FOR_UPDATE`]; a row that must stay as read, [`FOR_SHARE`].
        #[derive(Clone, Copy)]
        enum Hold {
            Update,
            Share,
        }

        impl Hold {
            fn sql(self) -> &'static str {
                match self {
                    Hold::Update => FOR_UPDATE,
                    Hold::Share => FOR_SHARE,
                }
            }
        }

        async fn person_in(conn: &mut Conn, id: PersonId, hold: Hold) -> Result<Person, TeamStoreError> {
            let row = sqlx::query(&format!("SELECT {PERSON_COLUMNS} FROM people WHERE id = $1{}", hold.sql()))
                .bind(id.0)
                .fetch_optional(conn)
                .await
                .or_backend()?;
            row.map(|r| person_from(&r)).ok_or(TeamStoreError::NoSuchPerson)
        }

        /// The person, if they have not left.
        async fn current_person(conn: &mut Conn, id: PersonId, hold: Hold) -> Result<Person, TeamStoreError> {
            let p = person_in(conn, id, hold).await?;
            match p.left_at {
                Some(_) => Err(TeamStoreError::HasLeft(p.name)),
                None => Ok(p),
            }
        }

        async fn team_in(conn: &mut Conn, id: TeamId, hold: Hold) -> Result<Team, TeamStoreError> {
            let row = sqlx::query(&format!("SELECT id, name, lead_id, role_id FROM teams WHERE id = $1{}", hold.sql()))
                .bind(id.0)
                .fetch_optional(conn)
                .await
                .or_backend()?;
            row.map(|r| team_from(&r)).ok_or(TeamStoreError::NoSuchTeam)
        }

        async fn set_team_column(
            conn: &mut Conn,
            team: TeamId,
            column: &'static str,
            value: Option<i64>,
        ) -> Result<(), TeamStoreError> {
            sqlx::query(&format!("UPDATE teams SET {column} = $1 WHERE id = $2"))
                .bind(value)
                .bind(team.0)
                .execute(conn)
                .await
                .or_backend()?;
            Ok(())
        }

        #[async_trait]
        impl TeamStore for ThisStore {
            async fn add_team(&self, name: &str, role: Option<RoleId>, actor: Actor) -> Result<Team, TeamStoreError> {
                let mut tx = begin_write(self.pool()).await?;
                lock(&mut tx, locks::TEAM_NAMES, 0).await?;
                name_free(&mut tx, name, None).await?;
                role_exists(&mut tx, role).await?;
                let id: i64 = sqlx::query_scalar(
                    "INSERT INTO teams (name, role_id, created_at) VALUES ($1, $2, $3) RETURNING id",
                )
                .bind(name)
                .bind(role.map(|r| r.0))
                .bind(actor.at)
                .fetch_one(&mut *tx)
                .await
                .map_err(|e| {
                    if is_unique_violation(&e) {
                        TeamStoreError::NameTaken(name.to_string())
                    } else {
                        backend(e).into()
                    }
                })?;
                audit(&mut tx, actor, "team.create", &format!("team:{id}"), name).await?;
                tx.commit().await.or_backend()?;
                Ok(Team { id: TeamId(id), name: name.to_string(), lead: None, role })
            }

            async fn change_team(
                &self,
                team: TeamId,
                change: &TeamChange,
                actor: Actor,
            ) -> Result<Team, TeamStoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let old = team_in(&mut tx, team, Hold::Update).await?;
                if let Some(lead) = change.as_lead {
                    let still_here = match current_person(&mut tx, lead, Hold::Share).await {
                        Ok(_) => true,
                        Err(TeamStoreError::NoSuchPerson | TeamStoreError::HasLeft(_)) => false,
                        Err(other) => return Err(other),
                    };
                    if old.lead != Some(lead) || !still_here {
                        return Err(TeamStoreError::NotLead);
                    }
                }
                let mut new = old.clone();
                let subject = format!("team:{team}");
                if let Some(name) = change.name.as_ref().filter(|n| **n != old.name) {
                    lock(&mut tx, locks::TEAM_NAMES, 0).await?;
                    name_free(&mut tx, name, Some(team)).await?;
                    sqlx::query("UPDATE teams SET name = $1 WHERE id = $2")
                        .bind(name)
                        .bind(team.0)
                        .execute(&mut *tx)
                        .await
                        .or_backend()?;
                    audit(&mut tx, actor, "team.rename", &subject, &format!("{} -> {name}", old.name)).await?;
                    new.name = name.clone();
                }
                if let Some(role) = change.role {
                    role_exists(&mut tx, role).await?;
                    if role != old.role {
                        set_team_column(&mut tx, team, "role_id", role.map(|r| r.0)).await?;
                        let detail = format!("{} -> {}", show(old.role.map(|r| r.0)), show(role.map(|r| r.0)));
                        audit(&mut tx, actor, "team.role", &subject, &detail).await?;
                        new.role = role;
                    }
                }
                if let Some(lead) = change.lead {
                    if let Some(p) = lead {
                        current_person(&mut tx, p, Hold::Share).await?;
                    }
                    if lead != old.lead {
                        set_team_column(&mut tx, team, "lead_id", lead.map(|p| p.0)).await?;
                        let detail = format!("{} -> {}", show(old.lead.map(|p| p.0)), show(lead.map(|p| p.0)));
                        audit(&mut tx, actor, "team.lead", &subject, &detail).await?;
                        new.lead = lead;
                    }
                }
                tx.commit().await.or_backend()?;
                Ok(new)
            }

            async fn move_person(
                &self,
                person: PersonId,
                team: TeamId,
                actor: Actor,
            ) -> Result<Person, TeamStoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let before = current_person(&mut tx, person, Hold::Update).await?;
                team_in(&mut tx, team, Hold::Share).await?;
                if before.main_team == Some(team) {
                    return Ok(before);
                }
                sqlx::query("UPDATE people SET main_team_id = $1 WHERE id = $2")
                    .bind(team.0)
                    .bind(person.0)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?;
                let detail = format!("{} -> {team}", show(before.main_team.map(|t| t.0)));
                audit(&mut tx, actor, "person.team", &format!("person:{person}"), &detail).await?;
                tx.commit().await.or_backend()?;
                Ok(before)
            }

            async fn set_manager(
                &self,
                person: PersonId,
                manager: Option<PersonId>,
                actor: Actor,
            ) -> Result<(), TeamStoreError> {
                let mut tx = begin_write(self.pool()).await?;
                // A circle spans many rows, so every manager change waits for the one before it.
                lock(&mut tx, locks::MANAGERS, 0).await?;
                let before = person_in(&mut tx, person, Hold::Update).await?;
                if let Some(m) = manager {
                    current_person(&mut tx, m, Hold::Share).await?;
                    let circle: bool = sqlx::query_scalar(CHAIN_REACHES)
                        .bind(m.0)
                        .bind(person.0)
                        .fetch_one(&mut *tx)
                        .await
                        .or_backend()?;
                    if circle {
                        return Err(TeamStoreError::ManagerCircle);
                    }
                }
                sqlx::query("UPDATE people SET manager_id = $1 WHERE id = $2")
                    .bind(manager.map(|p| p.0))
                    .bind(person.0)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?;
                let detail = format!("{} -> {}", show(before.manager.map(|p| p.0)), show(manager.map(|p| p.0)));
                audit(&mut tx, actor, "person.manager", &format!("person:{person}"), &detail).await?;
                tx.commit().await.or_backend()?;
                Ok(())
            }
        }
    };
}
pub(crate) use teams_store;
