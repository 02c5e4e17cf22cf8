//! Teams: the list with each team's role, lead and core.

pub mod teams_page;
