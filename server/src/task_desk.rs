//! The bots' boards, as runs hand work on to them: an approved `create_task` is put on the bot's
//! board by the person who approved it, with the same rules as any task they create.

use async_trait::async_trait;
use engine::org::Person;
use engine::persona::service::{Bots, Caller, PersonaError};
use engine::runs::handon::{HandedTask, TaskDesk};

pub struct BotBoards(pub Bots);

#[async_trait]
impl TaskDesk for BotBoards {
    async fn hand_on(&self, person: &Person, task: &HandedTask) -> Result<i64, String> {
        match self.0.create_task(&Caller::Person(person.clone()), &task.bot, &task.title, &task.body).await {
            Ok(t) => Ok(t.id),
            Err(PersonaError::Internal(detail)) => {
                tracing::error!(%detail, "a task handed on could not be created");
                Err(PersonaError::Internal(detail).to_string())
            }
            Err(e) => Err(e.to_string()),
        }
    }
}
