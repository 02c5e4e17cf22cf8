//! People as pages read them: a page of People with its search and counts by team, a person
//! picker's matches as someone types, and what a picker's field names when it is sent (an email or
//! a whole name). Every read is bounded, whatever the organisation's size.

use super::People;
use crate::org::listing::{
    offset_of, PeopleListing, PersonChoice, PrefixSearch, PEOPLE_PAGE_SIZE, PICK_LIMIT, SEARCH_MAX_CHARS,
};
use crate::org::store::OrgStore;
use crate::org::{OrgError, Person};

fn admins_only(by: &Person, what: &str) -> Result<(), OrgError> {
    if by.is_admin {
        Ok(())
    } else {
        Err(OrgError::NotAllowed(format!("Only an admin can {what}")))
    }
}

impl People {
    /// People, for admins: page `page` (from 1) of everyone by name, or of those whose name, email
    /// or main team's name starts with `search`, with how many current people each team has.
    pub async fn listing(&self, by: &Person, search: &str, page: u32) -> Result<PeopleListing, OrgError> {
        listing(&*self.store, by, search, page).await
    }

    /// A person picker's matches as an admin types: at most [`PICK_LIMIT`] current people whose
    /// name or email starts with what was typed. Nothing typed offers nobody.
    pub async fn pick(&self, by: &Person, typed: &str) -> Result<Vec<PersonChoice>, OrgError> {
        pick(&*self.store, by, typed).await
    }

    /// The person a picker's field names, as sent: an email (any case), or a current person's
    /// whole name (ignoring case in A to Z). Empty is nobody (`None`). `what` names the field in a
    /// refusal ("the manager"): nobody by that name or email, or several people of that name, is
    /// refused in words, so the form can say why and keep what was typed.
    pub async fn resolve(&self, by: &Person, typed: &str, what: &str) -> Result<Option<Person>, OrgError> {
        resolve(&*self.store, by, typed, what).await
    }
}

async fn listing<S: OrgStore + ?Sized>(
    store: &S,
    by: &Person,
    search: &str,
    page: u32,
) -> Result<PeopleListing, OrgError> {
    admins_only(by, "see People")?;
    let page = page.max(1);
    let prefix = PrefixSearch::parse(search);
    // One more than a page says whether there is a next one, without counting the rest.
    let (offset, limit) = (offset_of(page, PEOPLE_PAGE_SIZE), PEOPLE_PAGE_SIZE + 1);
    let (mut people, overflowed) = match &prefix {
        Some(prefix) => store.search_page(prefix, offset, limit).await?,
        None => (store.people_page(None, offset, limit).await?, false),
    };
    let has_next = people.len() > PEOPLE_PAGE_SIZE as usize;
    people.truncate(PEOPLE_PAGE_SIZE as usize);
    let outline = store.outline().await?;
    let counted = store.team_sizes().await?;
    let current = counted.iter().map(|s| s.people).sum();
    // Teams in the outline's order (by name), then those with no main team.
    let by_team: std::collections::HashMap<_, _> = counted.iter().map(|s| (s.team, s.people)).collect();
    let mut sizes: Vec<_> =
        outline.teams.iter().filter_map(|t| by_team.get(&Some(t.id)).map(|n| (Some(t.id), *n))).collect();
    sizes.extend(counted.iter().filter(|s| s.team.is_none()).map(|s| (None, s.people)));
    let search: String = search.trim().chars().take(SEARCH_MAX_CHARS).collect();
    Ok(PeopleListing { people, search, page, has_next, sizes, current, outline, overflowed })
}

async fn pick<S: OrgStore + ?Sized>(store: &S, by: &Person, typed: &str) -> Result<Vec<PersonChoice>, OrgError> {
    admins_only(by, "choose people")?;
    let Some(prefix) = PrefixSearch::parse(typed) else { return Ok(Vec::new()) };
    Ok(store.pick_people(&prefix, PICK_LIMIT).await?.iter().map(PersonChoice::from).collect())
}

async fn resolve<S: OrgStore + ?Sized>(
    store: &S,
    by: &Person,
    typed: &str,
    what: &str,
) -> Result<Option<Person>, OrgError> {
    // Only admins choose people; anyone else learns nothing of who is here.
    admins_only(by, "choose people")?;
    let typed = typed.trim();
    if typed.is_empty() {
        return Ok(None);
    }
    if typed.chars().count() > SEARCH_MAX_CHARS {
        return Err(OrgError::Invalid(format!("Type {what}'s name or email; that is too long for either")));
    }
    if typed.contains('@') {
        let found = store.people_by_emails(&[typed.to_string()]).await?;
        return match found.into_iter().next() {
            Some(p) => Ok(Some(p)),
            None => Err(OrgError::NotFound(format!(
                "Nobody here has the email {typed}, or they have left; type {what}'s email or name again"
            ))),
        };
    }
    let mut named = store.people_named(typed, 2).await?;
    match named.len() {
        0 => Err(OrgError::NotFound(format!(
            "Nobody here is called {typed}; type {what}'s whole name or email, or choose from the list"
        ))),
        1 => Ok(named.pop()),
        _ => Err(OrgError::Invalid(format!(
            "More than one person is called {typed}; type the email of the one you mean for {what}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::org::fake::{person, FakeOrg};
    use crate::org::listing::SEARCH_CONSIDERS;
    use crate::org::{PersonId, Team, TeamId};

    fn org(people: Vec<Person>) -> FakeOrg {
        let team = |id: i64, name: &str| Team { id: TeamId(id), name: name.into(), lead: None, role: None };
        FakeOrg::with(people, vec![team(1, "Sales"), team(2, "Support")], vec![])
    }

    fn people(n: usize) -> Vec<Person> {
        let mut out = vec![person(1, "Ada Admin", true, None)];
        for i in 0..n {
            let mut p = person(10 + i as i64, &format!("Person {i:03}"), false, Some(1 + (i % 2) as i64));
            p.email = format!("p{i:03}@acme.example");
            out.push(p);
        }
        out
    }

    #[tokio::test]
    async fn people_come_a_page_at_a_time_with_counts_by_team() {
        let org = org(people(120));
        let ada = person(1, "Ada Admin", true, None);
        let first = listing(&org, &ada, "", 1).await.expect("page 1");
        assert_eq!(first.people.len(), 50);
        assert!(first.has_next);
        assert_eq!(first.current, 121);
        let sizes: Vec<_> = first
            .sizes
            .iter()
            .map(|(t, n)| (t.and_then(|t| first.outline.team(t)).map(|t| t.name.clone()), *n))
            .collect();
        assert_eq!(sizes, vec![(Some("Sales".into()), 60), (Some("Support".into()), 60), (None, 1)]);
        let last = listing(&org, &ada, "", 3).await.expect("page 3");
        assert_eq!(last.people.len(), 21);
        assert!(!last.has_next);
        // By team name, by email and by name, ignoring case.
        let support = listing(&org, &ada, "SUPP", 1).await.expect("a search");
        assert_eq!(support.people.len(), 50);
        assert!(support.people.iter().all(|p| p.main_team == Some(TeamId(2))));
        assert_eq!(support.search, "SUPP");
        assert_eq!(listing(&org, &ada, "p00", 1).await.expect("by email").people.len(), 10);
        assert_eq!(listing(&org, &ada, "person 11", 1).await.expect("by name").people.len(), 10);
        let alice = person(2, "Alice", false, None);
        assert!(matches!(listing(&org, &alice, "", 1).await, Err(OrgError::NotAllowed(_))));
    }

    #[tokio::test]
    async fn a_search_that_matches_more_than_it_considers_says_so() {
        // 600 people: "person" starts 600 names, more than a search considers of one way.
        let org = org(people(600));
        let ada = person(1, "Ada Admin", true, None);
        let wide = listing(&org, &ada, "person", 1).await.expect("a search");
        assert!(wide.overflowed);
        assert_eq!(wide.people.len(), 50);
        let last = SEARCH_CONSIDERS / PEOPLE_PAGE_SIZE;
        let end = listing(&org, &ada, "person", last).await.expect("the last page");
        assert!(!end.has_next, "only those considered are listed");
        assert_eq!(end.people.last().map(|p| p.name.as_str()), Some("Person 099"));
        // A narrower search, and no search at all, do not.
        assert!(!listing(&org, &ada, "person 12", 1).await.expect("narrower").overflowed);
        assert!(!listing(&org, &ada, "", 1).await.expect("everyone").overflowed);
    }

    #[tokio::test]
    async fn a_picker_offers_a_few_and_resolves_an_email_or_a_whole_name() {
        let mut everyone = people(30);
        everyone.push(person(90, "Sam Rao", false, Some(1)));
        everyone.push(person(91, "Sam Rao", false, Some(2)));
        let org = org(everyone);
        let ada = person(1, "Ada Admin", true, None);
        assert_eq!(pick(&org, &ada, "per").await.expect("matches").len(), PICK_LIMIT as usize);
        assert!(pick(&org, &ada, " ").await.expect("nothing typed").is_empty());
        assert!(matches!(pick(&org, &person(2, "Alice", false, None), "per").await, Err(OrgError::NotAllowed(_))));
        assert_eq!(resolve(&org, &ada, "", "the manager").await.expect("nobody"), None);
        let by_email = resolve(&org, &ada, " P007@ACME.example ", "the manager").await.expect("by email");
        assert_eq!(by_email.map(|p| p.name), Some("Person 007".to_string()));
        let by_name = resolve(&org, &ada, "person 007", "the manager").await.expect("by name");
        assert_eq!(by_name.map(|p| p.id), Some(PersonId(17)));
        let Err(OrgError::Invalid(two)) = resolve(&org, &ada, "Sam Rao", "the lead").await else {
            panic!("two people of one name must be refused")
        };
        assert!(two.contains("More than one person is called Sam Rao") && two.contains("email"), "{two}");
        let Err(OrgError::NotFound(none)) = resolve(&org, &ada, "Nobody Here", "the owner").await else {
            panic!("an unknown name must be refused")
        };
        assert!(none.contains("Nobody here is called Nobody Here"), "{none}");
        assert!(matches!(resolve(&org, &ada, "ghost@acme.example", "the owner").await, Err(OrgError::NotFound(_))));
        let alice = person(2, "Alice", false, None);
        assert!(matches!(resolve(&org, &alice, "person 007", "the owner").await, Err(OrgError::NotAllowed(_))));
    }
}
