"""Put first in each player's row the columns the scans of every player read (PostgreSQL).

The standings, the API's list by rating and their counts read every current player: whether
the record is merged, the rating and the last rated day on a list, and the name for ties.
PostgreSQL reads a row's columns in order up to the last one a query needs, and
``merged_into_id`` was the 35th of 37 (a field added after the rest): every scan went through
the whole row, the name and the search key included. With these columns first, the count of a
5,000 players' standings took 45 % less of the server's CPU and their page's top 50 20 % less
(measured, docs/benchmarks.md).

PostgreSQL cannot move a column, so the table is rebuilt: a new table with the columns in the
new order, the rows copied, the old table dropped and the new one renamed, then every
constraint, index and foreign key of the old table made again as the catalogue described them,
under their own names (Django finds them by name later). One transaction; the tables whose
foreign keys point at the players are checked again (a federation's games: a scan of each
game's White and Black). Nothing on SQLite: its rows are read whole either way. The reverse is
nothing: the order of the columns means nothing to Django. Not elidable: a squash must keep it,
or a new database would get the old order back.
"""

from django.db import migrations

TABLE = "ladder_player"
FIRST = [
    "id",
    "merged_into_id",
    "rating",
    "last_rated_on",
    "rapid_rating",
    "rapid_last_rated_on",
    "blitz_rating",
    "blitz_last_rated_on",
    "name",
]


def rebuild(cursor, table, first):
    """Rebuild ``table`` with the columns ``first`` at its start, the others after them in
    their order; every row, constraint, index, foreign key (its own and those that point at
    it), identity, storage setting, owner, grants, comments and publications kept. A table
    with row security policies or with views on it is refused (its rebuild would drop them).
    PostgreSQL only; run inside a transaction."""
    quote = lambda name: '"' + name.replace('"', '""') + '"'  # noqa: E731
    cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # no check left pending on the old table
    cursor.execute(
        "SELECT (SELECT count(*) FROM pg_policy WHERE polrelid = %s::regclass), "
        "(SELECT count(*) FROM pg_depend d JOIN pg_rewrite r ON r.oid = d.objid "
        "WHERE d.refobjid = %s::regclass AND r.ev_class <> %s::regclass)",
        [table, table, table],
    )
    policies, views = cursor.fetchone()
    if policies or views:
        raise RuntimeError(
            f"{table} has row security policies or views on it: drop them, migrate, and make "
            "them again (rebuilding the table would drop them)."
        )
    cursor.execute(
        """
        SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, a.attidentity,
               CASE WHEN a.attcollation <> t.typcollation THEN
                    (SELECT quote_ident(collname) FROM pg_collation WHERE oid = a.attcollation)
               END,
               pg_get_expr(d.adbin, d.adrelid)
        FROM pg_attribute a
        JOIN pg_type t ON t.oid = a.atttypid
        LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE a.attrelid = %s::regclass AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY a.attnum
        """,
        [table],
    )
    columns = {row[0]: row[1:] for row in cursor.fetchall()}
    unknown = [name for name in first if name not in columns]
    if unknown:
        raise ValueError(f"{table} has no column {', '.join(unknown)}")
    order = list(first) + [name for name in columns if name not in first]
    cursor.execute(
        "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
        "WHERE conrelid = %s::regclass ORDER BY contype <> 'p', contype = 'f', conname",
        [table],
    )
    own = cursor.fetchall()  # the primary key first (the foreign keys need it), theirs last
    cursor.execute(
        "SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i WHERE i.indrelid = %s::regclass "
        "AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid "
        "AND c.conrelid = i.indrelid) ORDER BY i.indexrelid",
        [table],
    )
    indexes = [row[0] for row in cursor.fetchall()]
    cursor.execute(
        "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) FROM pg_constraint "
        "WHERE confrelid = %s::regclass AND conrelid <> confrelid ORDER BY 1, 2",
        [table],
    )
    pointing = cursor.fetchall()
    cursor.execute(
        "SELECT array_to_string(reloptions, ', ') FROM pg_class WHERE oid = %s::regclass", [table]
    )
    (options,) = cursor.fetchone()
    cursor.execute(
        "SELECT pg_get_userbyid(relowner), obj_description(oid, 'pg_class') FROM pg_class "
        "WHERE oid = %s::regclass",
        [table],
    )
    owner, comment = cursor.fetchone()
    cursor.execute(
        "SELECT CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(pg_get_userbyid(a.grantee)) "
        "END, a.privilege_type, a.is_grantable FROM pg_class c, aclexplode(c.relacl) a "
        "WHERE c.oid = %s::regclass AND a.grantee <> c.relowner",
        [table],
    )
    grants = cursor.fetchall()
    cursor.execute(
        "SELECT a.attname, col_description(a.attrelid, a.attnum) FROM pg_attribute a "
        "WHERE a.attrelid = %s::regclass AND a.attnum > 0 AND NOT a.attisdropped "
        "AND col_description(a.attrelid, a.attnum) IS NOT NULL",
        [table],
    )
    column_comments = cursor.fetchall()
    cursor.execute(
        "SELECT quote_ident(p.pubname) FROM pg_publication_rel r "
        "JOIN pg_publication p ON p.oid = r.prpubid WHERE r.prrelid = %s::regclass",
        [table],
    )
    publications = [row[0] for row in cursor.fetchall()]
    # An identity's sequence goes with the old table: its next value is carried over. A serial
    # column (a table made before Django 4.1) takes its values from a sequence the old column
    # owns, which the new column's default uses: it must outlive the old table.
    identities, serials = {}, {}
    for name, (_, _, identity, _, default) in columns.items():
        if not identity and default is None:
            continue
        cursor.execute("SELECT pg_get_serial_sequence(%s, %s)", [table, name])
        (sequence,) = cursor.fetchone()
        if identity:
            cursor.execute(f"SELECT last_value, is_called FROM {sequence}")
            identities[name] = cursor.fetchone()
        elif sequence is not None:
            serials[name] = sequence

    new = f"{table}__rebuilt"
    definitions = []
    for name in order:
        kind, not_null, identity, collation, default = columns[name]
        text = f"{quote(name)} {kind}"
        if collation:
            text += f" COLLATE {collation}"
        if not_null:
            text += " NOT NULL"
        if default is not None:
            text += f" DEFAULT {default}"
        if identity:
            text += " GENERATED " + ("ALWAYS" if identity == "a" else "BY DEFAULT") + " AS IDENTITY"
        definitions.append(text)
    storage = f" WITH ({options})" if options else ""
    cursor.execute(f"CREATE TABLE {quote(new)} ({', '.join(definitions)}){storage}")
    listed = ", ".join(quote(name) for name in order)
    cursor.execute(
        f"INSERT INTO {quote(new)} ({listed}) OVERRIDING SYSTEM VALUE "
        f"SELECT {listed} FROM {quote(table)}"
    )
    for other, name, _ in pointing:
        cursor.execute(f"ALTER TABLE {other} DROP CONSTRAINT {quote(name)}")
    for sequence in serials.values():
        cursor.execute(f"ALTER SEQUENCE {sequence} OWNED BY NONE")
    cursor.execute(f"DROP TABLE {quote(table)}")
    cursor.execute(f"ALTER TABLE {quote(new)} RENAME TO {quote(table)}")
    for name, (last_value, is_called) in identities.items():
        cursor.execute("SELECT pg_get_serial_sequence(%s, %s)", [table, name])
        (sequence,) = cursor.fetchone()
        cursor.execute(f"ALTER SEQUENCE {sequence} RENAME TO {quote(f'{table}_{name}_seq')}")
        cursor.execute("SELECT setval(pg_get_serial_sequence(%s, %s), %s, %s)",
                       [table, name, last_value, is_called])  # fmt: skip
    for name, sequence in serials.items():
        cursor.execute(f"ALTER SEQUENCE {sequence} OWNED BY {quote(table)}.{quote(name)}")
    for name, definition in own:
        cursor.execute(f"ALTER TABLE {quote(table)} ADD CONSTRAINT {quote(name)} {definition}")
    for definition in indexes:
        cursor.execute(definition)
    for other, name, definition in pointing:
        cursor.execute(f"ALTER TABLE {other} ADD CONSTRAINT {quote(name)} {definition}")
    cursor.execute("SELECT pg_get_userbyid(relowner) FROM pg_class WHERE oid = %s::regclass", [table])
    if cursor.fetchone()[0] != owner:
        cursor.execute(f"ALTER TABLE {quote(table)} OWNER TO {quote(owner)}")
    for grantee, privilege, grantable in grants:
        option = " WITH GRANT OPTION" if grantable else ""
        cursor.execute(f"GRANT {privilege} ON {quote(table)} TO {grantee}{option}")
    if comment is not None:
        cursor.execute(f"COMMENT ON TABLE {quote(table)} IS %s", [comment])
    for name, text in column_comments:
        cursor.execute(f"COMMENT ON COLUMN {quote(table)}.{quote(name)} IS %s", [text])
    for publication in publications:
        cursor.execute(f"ALTER PUBLICATION {publication} ADD TABLE {quote(table)}")
    cursor.execute(f"ANALYZE {quote(table)}")


def columns_read_first(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        rebuild(cursor, TABLE, FIRST)


class Migration(migrations.Migration):

    dependencies = [
        ('ladder', '0029_player_names_without_pattern_indexes'),
    ]

    operations = [
        migrations.RunPython(columns_read_first, migrations.RunPython.noop),
    ]
