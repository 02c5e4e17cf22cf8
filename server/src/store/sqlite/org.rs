//! `store::org` on SQLite, expanded here.

crate::store::org::org_store!();

/// The people around a person in two reads: SQLite has no `LATERAL` join to read the person's team
/// and everyone around them in one statement, as PostgreSQL does.
async fn around(
    store: &ThisStore,
    person: PersonId,
    teammates: u32,
) -> Result<engine::runs::whoswho::Around, StoreError> {
    let mut conn = store.pool().acquire().await.or_backend()?;
    // Two reads, whatever the team's size: the person with their main team and its role, then
    // everyone around them, each row saying who it is to them.
    let row = sqlx::query(
        "SELECT p.manager_id, t.id, t.name, t.lead_id, t.role_id, r.name AS role_name FROM people p \
         LEFT JOIN teams t ON t.id = p.main_team_id LEFT JOIN roles r ON r.id = t.role_id WHERE p.id = ?",
    )
    .bind(person.0)
    .fetch_optional(&mut *conn)
    .await
    .or_backend()?
    .ok_or_else(|| StoreError::NotFound(format!("person:{person}")))?;
    let team = row.get::<Option<i64>, _>("id").map(|_| team_from(&row));
    // The (main_team_id, name) index serves the teammates' filter and order; the limit bounds them.
    let rows = sqlx::query(&format!(
        "SELECT 'manager' AS who, {PERSON_COLUMNS} FROM people WHERE id = ? AND left_at IS NULL \
         UNION ALL SELECT 'lead', {PERSON_COLUMNS} FROM people WHERE id = ? AND left_at IS NULL \
         UNION ALL SELECT * FROM (SELECT 'teammate', {PERSON_COLUMNS} FROM people \
         WHERE main_team_id = ? AND id <> ? AND left_at IS NULL ORDER BY name LIMIT ?) AS teammates"
    ))
    .bind(row.get::<Option<i64>, _>("manager_id"))
    .bind(team.as_ref().and_then(|t| t.lead).map(|p| p.0))
    .bind(team.as_ref().map(|t| t.id.0))
    .bind(person.0)
    .bind(i64::from(teammates))
    .fetch_all(&mut *conn)
    .await
    .or_backend()?;
    let team_role = team.as_ref().and_then(|_| row.get("role_name"));
    Ok(crate::store::around_from(team, team_role, rows.iter().map(|r| (r.get::<&str, _>("who"), person_from(r)))))
}
