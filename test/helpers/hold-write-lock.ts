// A second process that takes a database's write lock with BEGIN IMMEDIATE, says "locked", and
// holds the lock until its stdin closes, as a long CLI command or another program could. It opens
// the file with the driver CLINIC_SQLITE_DRIVER names, as every process of the test run does.
import { sqliteDriver } from '../../src/db/drivers/sqlite-driver.js';

const db = sqliteDriver().open(process.argv[2]!);
db.exec('BEGIN IMMEDIATE');
process.stdout.write('locked\n');
process.stdin.resume();
process.stdin.on('end', () => {
  db.exec('ROLLBACK');
  db.close();
});
