-- Privileges for Lockstep's two Oracle schema users: LOCKSTEP_BUSINESS (business database) and
-- LOCKSTEP_WORKFLOW (Activiti's ACT_* tables). Run as SYS (AS SYSDBA) in the PDB that holds them,
-- e.g.  sqlplus sys/...@//host:1521/FREEPDB1 as sysdba @grants.sql
-- Create the users first (Lockstep's Oracle test does the same), for example:
--   CREATE USER lockstep_business IDENTIFIED BY "..." DEFAULT TABLESPACE users QUOTA UNLIMITED ON users;
--   CREATE USER lockstep_workflow IDENTIFIED BY "..." DEFAULT TABLESPACE users QUOTA UNLIMITED ON users;
-- Then point Lockstep at them (xa-config/env/lockstep-external.env.example, vendor oracle).
-- Statements end with ';' on their own line ends and carry no PL/SQL, so any SQL client can run them.

-- Own a schema: Flyway creates the business tables, the engine its ACT_* tables, both on first start.
GRANT CREATE SESSION, CREATE TABLE, CREATE SEQUENCE, CREATE VIEW, CREATE PROCEDURE TO lockstep_business;
GRANT CREATE SESSION, CREATE TABLE, CREATE SEQUENCE, CREATE VIEW, CREATE PROCEDURE TO lockstep_workflow;

-- XA through the JDBC thin driver (OracleXADataSource) calls DBMS_XA.
GRANT EXECUTE ON sys.dbms_xa TO lockstep_business;
GRANT EXECUTE ON sys.dbms_xa TO lockstep_workflow;

-- Recovery: XAResource.recover() reads the pending (prepared, in-doubt) branches from these views;
-- without them Atomikos sees no in-doubt branch and cannot finish or roll it back after a crash.
GRANT SELECT ON sys.dba_pending_transactions TO lockstep_business;
GRANT SELECT ON sys.dba_pending_transactions TO lockstep_workflow;
GRANT SELECT ON sys.pending_trans$ TO lockstep_business;
GRANT SELECT ON sys.pending_trans$ TO lockstep_workflow;
GRANT SELECT ON sys.dba_2pc_pending TO lockstep_business;
GRANT SELECT ON sys.dba_2pc_pending TO lockstep_workflow;
GRANT SELECT ON sys.dba_2pc_neighbors TO lockstep_business;
GRANT SELECT ON sys.dba_2pc_neighbors TO lockstep_workflow;

-- Recovery commits or rolls back branches that another session prepared (the one that crashed).
GRANT FORCE ANY TRANSACTION TO lockstep_business;
GRANT FORCE ANY TRANSACTION TO lockstep_workflow;
