// Package partiql parses the PartiQL statements DynamoDB accepts in
// ExecuteStatement, BatchExecuteStatement and ExecuteTransaction:
//
//	SELECT * | path, ... FROM table[."index"] [WHERE cond] [ORDER BY path [ASC|DESC], ...]
//	INSERT INTO table VALUE {'attr': value, ...}
//	UPDATE table SET path = value ... REMOVE path ... WHERE cond [RETURNING ALL|MODIFIED OLD|NEW *]
//	DELETE FROM table WHERE cond [RETURNING ALL OLD *]
//	EXISTS(SELECT * FROM table WHERE cond)
//
// Parse turns the text into a tree (Statement, Expr); it knows nothing of
// tables, so checking a statement against a table's key schema and running
// it belong to the engine (package local). Keywords ignore case; names are
// bare identifiers or "double quoted" (a doubled quote stands for itself),
// strings 'single quoted'; literals are numbers, strings, TRUE, FALSE, NULL,
// MISSING, [lists], {'key': maps} and <<sets>>; ? is a parameter, numbered
// from 0 in the order written.
//
// Every Statement's String method prints a canonical form that Parse reads
// back to an equal tree (FuzzParse checks it), and Parse never panics: input
// nested more deeply than 64 levels is a syntax error, not a stack overflow.
package partiql
