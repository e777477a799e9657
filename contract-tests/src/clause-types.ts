/** One clause of the written specification: a numbered rule or a table row. */
export interface Clause {
  /** Stable id, e.g. `Limits 1`, `Endpoints > Orders: PUT /orders/:id/status`, `Resources > DraftDish: price`. */
  id: string;
  /** Heading trail the clause sits under. */
  section: string;
  kind: 'rule' | 'row';
  /** The rule's text, or the row's cells as `Header: value; …`. */
  text: string;
  /** The clause only says that something is "not shown" (nothing to test). */
  notShown: boolean;
}
