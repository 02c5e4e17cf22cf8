//! A connector as a toolset: the roles it admits, and the tools that read with people's own keys.
//! Both are settings of the setup sheet, saved through [`PersonMemory::save_settings`], so what
//! must go when a tool's key changes goes in the same way as from the sheet's other settings.

use super::*;

/// What a toolset's role list means, for its screen: none chosen admits everyone.
pub fn admits_line(role_names: &[String]) -> String {
    if role_names.is_empty() {
        "It admits everyone in the company: no role is chosen.".to_string()
    } else {
        format!("It admits {} only.", and_list(role_names))
    }
}

fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

impl Connectors {
    /// An admin chooses the roles (by slug) a toolset admits; none admits everyone. Whoever it
    /// no longer admits loses it at their next read, as the access decision says.
    pub async fn set_admits_roles(
        &self,
        admin: &Person,
        connector: i64,
        roles: &[String],
    ) -> Result<String, MemoryError> {
        must_be_admin(admin)?;
        let mut c = self.reads.connector(connector).await?;
        let dir = self.store.outline().await?;
        let mut slugs: Vec<String> = Vec::new();
        let mut names: Vec<String> = Vec::new();
        for r in roles.iter().map(|r| r.trim()).filter(|r| !r.is_empty()) {
            let role = dir
                .roles
                .iter()
                .find(|x| x.slug.as_str() == r)
                .ok_or_else(|| MemoryError::NotFound(format!("There is no role {r}")))?;
            if !slugs.iter().any(|s| s == r) {
                slugs.push(r.to_string());
                names.push(role.name.clone());
            }
        }
        c.admits_roles = slugs;
        let name = c.name.clone();
        self.save_settings(admin, &c).await?;
        Ok(format!("Saved who {name} admits. {}", admits_line(&names)))
    }

    /// An admin sets which ticked tools read with people's own keys, whatever the connector's
    /// mode. A company-key card of such a tool is no longer shown, and a key kind no tool reads
    /// with any more takes its cards with it at once; the sentence says how many.
    pub async fn set_own_key_tools(
        &self,
        admin: &Person,
        connector: i64,
        tools: &[String],
    ) -> Result<String, MemoryError> {
        must_be_admin(admin)?;
        let mut c = self.reads.connector(connector).await?;
        let mut chosen: Vec<String> = Vec::new();
        for t in tools.iter().map(|t| t.trim()).filter(|t| !t.is_empty()) {
            if !c.ticked.iter().any(|x| x == t) {
                return Err(MemoryError::Invalid(format!("{t} is not a ticked tool of {}", c.name)));
            }
            if !chosen.iter().any(|x| x == t) {
                chosen.push(t.to_string());
            }
        }
        c.own_key_tools = chosen.clone();
        let saved = self.save_settings(admin, &c).await?;
        let which = if chosen.is_empty() {
            "No tool uses people's own keys.".to_string()
        } else {
            format!("People's own keys for {}.", and_list(&chosen))
        };
        Ok(format!("{saved}. {which}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn none_chosen_admits_everyone_and_a_list_reads_as_a_sentence() {
        assert_eq!(admits_line(&[]), "It admits everyone in the company: no role is chosen.");
        assert_eq!(admits_line(&["Sales".into()]), "It admits Sales only.");
        let three = ["Sales".to_string(), "Support".to_string(), "Finance".to_string()];
        assert_eq!(admits_line(&three), "It admits Sales, Support and Finance only.");
    }
}
