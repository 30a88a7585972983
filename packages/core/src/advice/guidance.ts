/**
 * What an S2SP result looks like to a model, in the words every package uses: a sentence a server
 * puts in its `instructions` and a client adds to the tools it hands its model, so that both
 * describe one form one way. Unlike the advice entries, these describe rather than instruct.
 *
 * @module
 */

/**
 * How to read an abstract in the compact encoding (PROTOCOL §7.5): said by a server whose default
 * it is, and by a client that declares it (the server's instructions then do not say it).
 */
export const compactAbstractReading =
  'abstract is a header row, then value rows; a value row whose _row_id is a list stands for each of those rows.';
