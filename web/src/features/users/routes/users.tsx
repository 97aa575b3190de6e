/**
 * /users: User Management (SPEC 2). Read-only for now.
 * TODO(issue 5): Edit, Delete (with confirmation), '+ Invite User' and the Security section.
 */
import { PageHeader } from "@/components/layout/PageHeader";
import page from "@/components/layout/page.module.css";
import { Panel } from "@/components/ui/Panel";

import { useAccountUsers } from "../api/users";

export function Component() {
  const { data: users } = useAccountUsers();
  if (!users) return null; // the shell renders pages only once the account has loaded
  return (
    <>
      <PageHeader title="User Management" />
      <Panel
        title="Users"
        description={`${users.length} ${users.length === 1 ? "person has" : "people have"} access to this account.`}
      >
        <table className={page.table} aria-label="Users">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Sign-in</th>
            </tr>
          </thead>
          <tbody>
            {users.map((user) => (
              <tr key={user.id}>
                <td>
                  {user.firstName} {user.lastName}
                </td>
                <td>{user.email}</td>
                <td>
                  <span className={page.badge}>{user.authType}</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Panel>
    </>
  );
}
