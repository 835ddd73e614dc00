import { AdminNav } from "@/components/admin/admin-nav";

/** The admin pages' frame; each page authorizes itself (page() in lib/server/edge). */
export default function AdminLayout({ children }: { children: React.ReactNode }) {
  return (
    <div className="admin-page">
      <AdminNav />
      {children}
    </div>
  );
}
