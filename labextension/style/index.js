import './base.css';
import './reopened.css';
