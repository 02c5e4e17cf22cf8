//! The organisation read in bounded pieces (`OrgListing`): the outline (teams, roles and company
//! agents, never the people), a page of people by name and a search by how a name, an email or a
//! team's name starts, a picker's matches, a whole name, people by ids or emails, a team's members
//! a page at a time, and the counts by team. Every page that lists people reads these, so what it
//! costs does not grow with the organisation. Written once for both backends, beside `store::org`,
//! whose row readers it shares.

macro_rules! org_listing_store {
    () => {
        use super::org::{agent_from, person_from, role_from, team_from, AGENT_COLUMNS, PERSON_COLUMNS};
        use super::{folded, in_list, list, ThisStore, BY_BYTES};
        use crate::store::OrBackend;
        use async_trait::async_trait;
        use engine::org::listing::{fold, Outline, PrefixSearch, TeamSize};
        use engine::org::{Person, PersonId, TeamId};
        use engine::store::{OrgListing, StoreError};
        use sqlx::Row;

        /// The three ways a search matches, each the ids and names of the first `limit` (a
        /// placeholder) in its index's order: by folded name (then name and id), by email (which
        /// is unique), and by main team (then name and id); `current` keeps only those who have
        /// not left, and without `by_team` the third is left out. `$1` and `$2` are the search's
        /// range. The indexes hold the name and the id beside what they are ordered by, so each
        /// way is read from its index alone.
        fn ways(current: bool, by_team: bool, limit: &str) -> Vec<String> {
            let name = folded("name");
            let current = if current { " AND left_at IS NULL" } else { "" };
            let mut ways = vec![
                format!(
                    "SELECT id, name FROM people WHERE {name} >= $1 AND {name} < $2{current} \
                     ORDER BY {name}, name{BY_BYTES}, id LIMIT {limit}"
                ),
                format!(
                    "SELECT id, name FROM people WHERE email{BY_BYTES} >= $1 AND email{BY_BYTES} < $2{current} \
                     ORDER BY email{BY_BYTES} LIMIT {limit}"
                ),
            ];
            if by_team {
                ways.push(format!(
                    "SELECT id, name FROM people \
                     WHERE main_team_id IN (SELECT id FROM teams WHERE {name} >= $1 AND {name} < $2){current} \
                     ORDER BY main_team_id, name{BY_BYTES}, id LIMIT {limit}"
                ));
            }
            ways
        }

        /// The ids of one page of what a search considers (see [`ways`]), `$3` of each way, by
        /// name then id: `limit` and `offset` are placeholders. Only the page's rows are then read.
        fn considered(current: bool, by_team: bool, limit: &str, offset: &str) -> String {
            let union: Vec<String> =
                ways(current, by_team, "$3").iter().map(|w| format!("SELECT id, name FROM ({w}) AS w")).collect();
            format!(
                "SELECT id FROM ({}) AS c ORDER BY name{BY_BYTES}, id LIMIT {limit} OFFSET {offset}",
                union.join(" UNION ")
            )
        }

        #[async_trait]
        impl OrgListing for ThisStore {
            async fn outline(&self) -> Result<Outline, StoreError> {
                // One statement, so the three lists agree with each other (a statement reads one
                // snapshot on both backends), and one round trip to the database rather than five
                // (a transaction's start, three reads and its end): most pages read the outline.
                // Each kind's rows are sorted here by name, by bytes, as `BY_BYTES` sorts.
                // The agents' branch takes `AGENT_COLUMNS` as every read of an agent does; the
                // roles' branch, first, names the union's columns in that order, then the columns
                // only roles and teams have.
                let rows = sqlx::query(&format!(
                    "SELECT CAST(0 AS BIGINT) AS kind, id, name, CAST(NULL AS TEXT) AS template, \
                     CAST(NULL AS BIGINT) AS role_id, CAST(NULL AS BIGINT) AS owner_id, \
                     CAST(NULL AS BIGINT) AS team_copy_id, CAST(NULL AS TEXT) AS description, \
                     CAST(NULL AS BIGINT) AS copy_of_id, CAST(NULL AS BOOLEAN) AS private, \
                     slug, company_core_limit, CAST(NULL AS BIGINT) AS lead_id FROM roles \
                     UNION ALL SELECT 1, id, name, NULL, role_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, lead_id \
                     FROM teams \
                     UNION ALL SELECT 2, {AGENT_COLUMNS}, NULL, NULL, NULL FROM agents WHERE NOT private",
                ))
                .fetch_all(self.pool())
                .await
                .or_backend()?;
                let mut outline = Outline::default();
                for row in &rows {
                    match row.try_get::<i64, _>("kind").or_backend()? {
                        0 => outline.roles.push(role_from(row)?),
                        1 => outline.teams.push(team_from(row)),
                        _ => outline.agents.push(agent_from(row)),
                    }
                }
                outline.roles.sort_by(|a, b| a.name.cmp(&b.name));
                outline.teams.sort_by(|a, b| a.name.cmp(&b.name));
                outline.agents.sort_by(|a, b| a.name.cmp(&b.name));
                Ok(outline)
            }

            async fn people_page(
                &self,
                search: Option<&PrefixSearch>,
                offset: u32,
                limit: u32,
            ) -> Result<Vec<Person>, StoreError> {
                // By name then id, which the (name, id) index holds in order. A search is three
                // index ranges (the folded name, the email, the folded team names), each read in
                // its index's order and stopped after the first `considers`, so however many match
                // it reads and sorts at most three times that many, and reads the rows of one page.
                // An OR of the three ranges instead read every match (at 100,000 people, "a" was
                // 3,800 rows), or, where the planner walked the name index to find 50 by name,
                // most of the index ("z": 250 ms on PostgreSQL). See BENCHMARKS.md.
                let rows = match search {
                    // The page's ids from the (name, id) index alone, then only its rows: a
                    // page further on steps over the ones before it in the index, not their rows.
                    None => {
                        sqlx::query(&format!(
                            "SELECT {PERSON_COLUMNS} FROM people WHERE id IN \
                             (SELECT id FROM people ORDER BY name{BY_BYTES}, id LIMIT $1 OFFSET $2) \
                             ORDER BY name{BY_BYTES}, id"
                        ))
                        .bind(i64::from(limit))
                        .bind(i64::from(offset))
                        .fetch_all(self.pool())
                        .await
                    }
                    Some(s) => {
                        sqlx::query(&format!(
                            "SELECT {PERSON_COLUMNS} FROM people WHERE id IN ({}) ORDER BY name{BY_BYTES}, id",
                            considered(false, true, "$4", "$5")
                        ))
                        .bind(&s.from)
                        .bind(&s.to)
                        .bind(i64::from(s.considers))
                        .bind(i64::from(limit))
                        .bind(i64::from(offset))
                        .fetch_all(self.pool())
                        .await
                    }
                };
                Ok(rows.or_backend()?.iter().map(person_from).collect())
            }

            async fn search_overflows(&self, search: &PrefixSearch) -> Result<bool, StoreError> {
                // Each way counted no further than one past what a search considers.
                let over: Vec<String> =
                    ways(false, true, "$4").iter().map(|w| format!("(SELECT COUNT(*) FROM ({w}) AS w) > $3")).collect();
                let row = sqlx::query(&format!("SELECT {} AS over", over.join(" OR ")))
                    .bind(&search.from)
                    .bind(&search.to)
                    .bind(i64::from(search.considers))
                    .bind(i64::from(search.considers) + 1)
                    .fetch_one(self.pool())
                    .await
                    .or_backend()?;
                Ok(row.try_get::<bool, _>(0).or_backend()?)
            }

            async fn search_page(
                &self,
                search: &PrefixSearch,
                offset: u32,
                limit: u32,
            ) -> Result<(Vec<Person>, bool), StoreError> {
                // The page's rows, each with whether the search overflows: that is a subquery of
                // no row's columns, so both backends work it out once a statement, and the
                // People page makes one statement of a search rather than two. A page past the
                // end has no row to carry it, and asks on its own.
                let over: Vec<String> =
                    ways(false, true, "$6").iter().map(|w| format!("(SELECT COUNT(*) FROM ({w}) AS w) > $3")).collect();
                let rows = sqlx::query(&format!(
                    "SELECT {PERSON_COLUMNS}, ({}) AS over FROM people WHERE id IN ({}) ORDER BY name{BY_BYTES}, id",
                    over.join(" OR "),
                    considered(false, true, "$4", "$5")
                ))
                .bind(&search.from)
                .bind(&search.to)
                .bind(i64::from(search.considers))
                .bind(i64::from(limit))
                .bind(i64::from(offset))
                .bind(i64::from(search.considers) + 1)
                .fetch_all(self.pool())
                .await
                .or_backend()?;
                let overflowed = match rows.first() {
                    Some(row) => row.try_get::<bool, _>("over").or_backend()?,
                    None => self.search_overflows(search).await?,
                };
                Ok((rows.iter().map(person_from).collect(), overflowed))
            }

            async fn pick_people(&self, search: &PrefixSearch, limit: u32) -> Result<Vec<Person>, StoreError> {
                Ok(sqlx::query(&format!(
                    "SELECT {PERSON_COLUMNS} FROM people WHERE id IN ({}) ORDER BY name{BY_BYTES}, id",
                    considered(true, false, "$4", "0")
                ))
                .bind(&search.from)
                .bind(&search.to)
                .bind(i64::from(search.considers))
                .bind(i64::from(limit))
                .fetch_all(self.pool())
                .await
                .or_backend()?
                .iter()
                .map(person_from)
                .collect())
            }

            async fn people_named(&self, name: &str, limit: u32) -> Result<Vec<Person>, StoreError> {
                Ok(sqlx::query(&format!(
                    "SELECT {PERSON_COLUMNS} FROM people WHERE {} = $1 AND left_at IS NULL ORDER BY id LIMIT $2",
                    folded("name")
                ))
                .bind(fold(name.trim()))
                .bind(i64::from(limit))
                .fetch_all(self.pool())
                .await
                .or_backend()?
                .iter()
                .map(person_from)
                .collect())
            }

            async fn people_by_ids(&self, ids: &[PersonId]) -> Result<Vec<Person>, StoreError> {
                if ids.is_empty() {
                    return Ok(Vec::new());
                }
                let ids: Vec<i64> = ids.iter().map(|p| p.0).collect();
                Ok(sqlx::query(&format!(
                    "SELECT {PERSON_COLUMNS} FROM people WHERE {} ORDER BY name{BY_BYTES}, id",
                    in_list("id", 1)
                ))
                .bind(list(&ids))
                .fetch_all(self.pool())
                .await
                .or_backend()?
                .iter()
                .map(person_from)
                .collect())
            }

            async fn team_members(&self, team: TeamId, offset: u32, limit: u32) -> Result<Vec<Person>, StoreError> {
                // The index of current people by team, name and id holds a team's members in
                // order: the page's ids come from it alone, stepping over the pages before it in
                // the index rather than reading their rows (the tenth page of 2,500 read 500 rows
                // for its 50 on PostgreSQL), and then only the page's rows are read.
                Ok(sqlx::query(&format!(
                    "SELECT {PERSON_COLUMNS} FROM people WHERE id IN \
                     (SELECT id FROM people WHERE main_team_id = $1 AND left_at IS NULL \
                      ORDER BY name{BY_BYTES}, id LIMIT $2 OFFSET $3) \
                     ORDER BY name{BY_BYTES}, id"
                ))
                .bind(team.0)
                .bind(i64::from(limit))
                .bind(i64::from(offset))
                .fetch_all(self.pool())
                .await
                .or_backend()?
                .iter()
                .map(person_from)
                .collect())
            }

            async fn team_sizes(&self) -> Result<Vec<TeamSize>, StoreError> {
                // Kept by the migration's triggers, one row a team (0 for no main team).
                Ok(sqlx::query("SELECT team_id, people FROM team_sizes WHERE people > 0 ORDER BY team_id")
                    .fetch_all(self.pool())
                    .await
                    .or_backend()?
                    .iter()
                    .map(|r| {
                        let team: i64 = r.get("team_id");
                        TeamSize {
                            team: (team != 0).then_some(TeamId(team)),
                            people: u32::try_from(r.get::<i64, _>("people")).unwrap_or(u32::MAX),
                        }
                    })
                    .collect())
            }

            async fn people_by_emails(&self, emails: &[String]) -> Result<Vec<Person>, StoreError> {
                let mut emails: Vec<String> =
                    emails.iter().map(|e| e.trim().to_lowercase()).filter(|e| !e.is_empty()).collect();
                emails.sort();
                emails.dedup();
                if emails.is_empty() {
                    return Ok(Vec::new());
                }
                // Emails are kept lowercased, so the unique email index serves the lookup.
                Ok(sqlx::query(&format!(
                    "SELECT {PERSON_COLUMNS} FROM people WHERE {} AND left_at IS NULL ORDER BY name{BY_BYTES}",
                    in_list("email", 1)
                ))
                .bind(list(&emails))
                .fetch_all(self.pool())
                .await
                .or_backend()?
                .iter()
                .map(person_from)
                .collect())
            }
        }
    };
}
pub(crate) use org_listing_store;
