//! `store::org` on PostgreSQL, expanded here.

crate::store::org::org_store!();

/// The people around a person in one round trip: the person's manager and main team with its role
/// beside everyone around them, joined `LATERAL`, which SQLite lacks (there it takes two reads).
async fn around(
    store: &ThisStore,
    person: PersonId,
    teammates: u32,
) -> Result<engine::runs::whoswho::Around, StoreError> {
    // One round trip, whatever the team's size: the person's manager and main team with its
    // role beside everyone around them, each row saying who it is to them (one row with no
    // one when nobody is). The (main_team_id, name COLLATE "C") index serves the teammates'
    // filter and order; the limit bounds them.
    let rows = sqlx::query(&format!(
        "WITH me AS (SELECT p.manager_id AS me_manager_id, t.id AS team_id, t.name AS team_name, \
         t.lead_id AS team_lead_id, t.role_id AS team_role_id, r.name AS team_role_name FROM people p \
         LEFT JOIN teams t ON t.id = p.main_team_id LEFT JOIN roles r ON r.id = t.role_id WHERE p.id = $1) \
         SELECT me.*, x.* FROM me LEFT JOIN LATERAL (\
         SELECT 'manager' AS who, {PERSON_COLUMNS} FROM people WHERE id = me.me_manager_id AND left_at IS NULL \
         UNION ALL SELECT 'lead', {PERSON_COLUMNS} FROM people WHERE id = me.team_lead_id AND left_at IS NULL \
         UNION ALL SELECT * FROM (SELECT 'teammate', {PERSON_COLUMNS} FROM people \
         WHERE main_team_id = me.team_id AND id <> $1 AND left_at IS NULL ORDER BY name COLLATE \"C\" LIMIT $2) \
         AS teammates) x ON true"
    ))
    .bind(person.0)
    .bind(i64::from(teammates))
    .fetch_all(store.pool())
    .await
    .or_backend()?;
    let first = rows.first().ok_or_else(|| StoreError::NotFound(format!("person:{person}")))?;
    let team = crate::store::joined_team_from(first);
    let team_role = team.as_ref().and_then(|_| first.get("team_role_name"));
    let people = rows.iter().filter_map(|r| Some((r.get::<Option<&str>, _>("who")?, person_from(r))));
    Ok(crate::store::around_from(team, team_role, people))
}
