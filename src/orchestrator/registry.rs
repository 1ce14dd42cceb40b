//! Stages by node id. The driver runs whatever a topology names, looked up here; a new stage is
//! registered once ([`super::stages::all`], or [`Registry::with`] for one defined elsewhere).

use super::stage::Stage;
use super::stages;
use super::topology::{NodeId, Topology, TopologyError};
use std::collections::BTreeMap;
use std::sync::Arc;

#[derive(Clone)]
pub struct Registry {
    stages: BTreeMap<NodeId, Arc<dyn Stage>>,
}

impl Registry {
    /// The built-in stages.
    pub fn builtin() -> Registry {
        stages::all()
            .into_iter()
            .fold(Registry::empty(), |r, s| r.with(s))
    }

    pub fn empty() -> Registry {
        Registry {
            stages: BTreeMap::new(),
        }
    }

    /// Registers `stage`, replacing a stage with the same id.
    pub fn with(mut self, stage: Arc<dyn Stage>) -> Registry {
        self.stages.insert(stage.id(), stage);
        self
    }

    pub fn get(&self, id: &NodeId) -> Option<&Arc<dyn Stage>> {
        self.stages.get(id)
    }

    /// Every node of `t` has a stage here.
    pub fn covers(&self, t: &Topology) -> Result<(), TopologyError> {
        match t.nodes.iter().find(|n| !self.stages.contains_key(*n)) {
            Some(n) => Err(TopologyError::Unregistered {
                topology: t.name.to_string(),
                node: n.to_string(),
            }),
            None => Ok(()),
        }
    }
}
