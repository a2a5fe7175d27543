/**
 * The views besides the wizards: home (start page), history (shipments
 * applied to a destination, with rollback), trust (this home's identity and
 * the publisher keys it trusts), plan (the planner with its chart) and
 * subscribers (who is behind, and where the drives are).
 */
export { historyView } from './history.js';
export { homeView } from './home.js';
export { planView } from './plan.js';
export { rebuildView } from './rebuild.js';
export { subscribersView } from './subscribers.js';
export { trustView } from './trust.js';
