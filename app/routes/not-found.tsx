import { Navigate } from "react-router";

/** SPEC §2: any unknown path goes to the home page. */
export default function NotFound() {
  return <Navigate to="/" replace />;
}
