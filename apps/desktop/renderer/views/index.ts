/**
 * The views besides the wizards: home (start page), history (shipments
 * applied to a destination, with rollback), trust (this home's identity and
 * the publisher keys it trusts) and plan (the planner with its chart).
 */
export { historyView } from './history.js';
export { homeView } from './home.js';
export { planView } from './plan.js';
export { trustView } from './trust.js';
