//! Asking: the Ask page (pick an agent, write a question), and a thread with its answers, the
//! run's steps under Details, Try again and follow-up questions.

pub mod ask_agent;
pub mod ask_in_thread;
pub mod ask_page;
pub mod load_ask;
pub mod load_thread;
pub mod load_thread_page;
pub mod retry_run;
pub mod thread_page;
